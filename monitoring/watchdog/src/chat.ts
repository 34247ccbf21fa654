/** Posting to the chat webhook (Slack-compatible JSON body {text}). */
export async function postToChat(webhookUrl: string, text: string, fetchImpl: typeof fetch = fetch): Promise<boolean> {
  try {
    const response = await fetchImpl(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
    // Drain the body so the connection can be reused.
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Delivers pending messages oldest first, stopping at the first failure so order is kept. */
export async function flush(pending: string[], webhookUrl: string): Promise<boolean> {
  let changed = false;
  while (pending.length > 0) {
    if (!(await postToChat(webhookUrl, pending[0]!))) break;
    pending.shift();
    changed = true;
  }
  return changed;
}
