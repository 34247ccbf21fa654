/**
 * A receiver of Alertmanager v0.34.0's configuration: its name and labels (Receiver.UnmarshalYAML), and the Slack and
 * webhook integrations whole (each with its UnmarshalYAML checks and prometheus/common's HTTP client); the others are
 * decoded as a list, their fields not judged.
 */
import type { GoStruct } from '../yaml/go-decode.ts';
import { isMap } from '../core/dig.ts';
import { HTTP_CLIENT_CONFIG } from '../blackbox/config.ts';
import { text } from '../blackbox/go-libraries.ts';
import { B, GO_DURATION, S, strings, TEMPLATE_URL, UINT, URL_TYPE } from './types.ts';

const SLACK_CONFIG: GoStruct = {
  go: 'struct',
  type: 'config.plain',
  fields: {
    send_resolved: B,
    http_config: HTTP_CLIENT_CONFIG,
    api_url: URL_TYPE,
    app_url: URL_TYPE,
    ...Object.fromEntries(
      [
        'api_url_file',
        'app_token',
        'app_token_file',
        'channel',
        'username',
        'color',
        'title',
        'title_link',
        'pretext',
        'text',
        'message_text',
        'footer',
        'fallback',
        'callback_id',
        'icon_emoji',
        'icon_url',
        'image_url',
        'thumb_url',
      ].map((f) => [f, S]),
    ),
    fields: { go: 'list', of: { go: 'struct', type: 'config.SlackField', fields: { title: S, value: S, short: B } } },
    short_fields: B,
    link_names: B,
    mrkdwn_in: strings,
    actions: {
      go: 'list',
      of: {
        go: 'struct',
        type: 'config.plain',
        fields: {
          ...Object.fromEntries(['type', 'text', 'url', 'style', 'name', 'value'].map((f) => [f, S])),
          confirm: { go: 'struct', type: 'config.SlackConfirmationField', fields: { text: S, title: S, ok_text: S, dismiss_text: S } },
        },
      },
    },
    update_message: B,
    timeout: GO_DURATION,
  },
  validate: (c) => {
    const set = (k: string) => text(c[k]) !== '';
    if (set('api_url') && set('api_url_file')) return 'at most one of api_url & api_url_file must be configured';
    if (set('app_token') && set('app_token_file')) return 'at most one of app_token & app_token_file must be configured';
    if ((set('api_url') || set('api_url_file')) && (set('app_token') || set('app_token_file')))
      return 'at most one of api_url/api_url_file & app_token/app_token_file must be configured';
    if (c.update_message === true && text(c.api_url) !== 'https://slack.com/api/chat.postMessage')
      return 'update_message can only be used with bot tokens. api_url must be set to https://slack.com/api/chat.postMessage';
    return undefined;
  },
};

const WEBHOOK_CONFIG: GoStruct = {
  go: 'struct',
  type: 'config.plain',
  fields: { send_resolved: B, http_config: HTTP_CLIENT_CONFIG, url: TEMPLATE_URL, url_file: S, max_alerts: UINT, timeout: GO_DURATION, payload: { go: 'any' } },
  validate: (c) => {
    const [url, file] = [text(c.url) !== '', text(c.url_file) !== ''];
    if (!url && !file) return 'one of url or url_file must be configured';
    return url && file ? 'at most one of url & url_file must be configured' : undefined;
  },
};

/** The integrations of a receiver v0.34.0 has; those but Slack and webhooks are taken as they are and said not judged. */
export const OTHER_INTEGRATIONS = [
  'discord_configs',
  'email_configs',
  'incidentio_configs',
  'pagerduty_configs',
  'opsgenie_configs',
  'wechat_configs',
  'pushover_configs',
  'victorops_configs',
  'sns_configs',
  'telegram_configs',
  'webex_configs',
  'msteams_configs',
  'msteamsv2_configs',
  'jira_configs',
  'rocketchat_configs',
  'mattermost_configs',
];

export const RECEIVER: GoStruct = {
  go: 'struct',
  type: 'config.plain',
  fields: {
    name: S,
    labels: { go: 'map', of: S },
    slack_configs: { go: 'list', of: SLACK_CONFIG },
    webhook_configs: { go: 'list', of: WEBHOOK_CONFIG },
    ...Object.fromEntries(OTHER_INTEGRATIONS.map((k) => [k, { go: 'list', of: { go: 'any' } }])),
  },
  validate: (r) => {
    if (text(r.name) === '') return 'missing name in receiver';
    const label = isMap(r.labels) ? r.labels.name : undefined;
    return label !== undefined && label !== null && text(label) !== text(r.name)
      ? `receiver label "name" must match receiver name "${text(r.name)}", got "${text(label)}"`
      : undefined;
  },
};
