/**
 * An image reference as the kubelet's runtime parses it: the grammar of
 * distribution/reference (reference.go's regexp), which containerd and
 * CRI-O both use. The API server stores any non-blank string; a reference
 * this grammar refuses is an image no node can pull (ErrInvalidImageName),
 * so the pod never starts.
 *
 *   reference := name [ ":" tag ] [ "@" digest ]
 *   name      := [domain "/"] path-component ["/" path-component]*
 */
const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_NAME = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*`;
const IPV6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN = `(?:${DOMAIN_NAME}|${IPV6})(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const NAME_MAX = 255;

/** Why a node cannot pull this reference, or undefined. */
export function imageReferenceProblem(image: string): string | undefined {
  if (image.trim() !== image) return 'must not have leading or trailing whitespace';
  const m = REFERENCE.exec(image);
  if (!m) {
    if (REFERENCE.test(image.toLowerCase())) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  if (m[1]!.length > NAME_MAX) return `repository name must not be more than ${NAME_MAX} characters`;
  const digest = m[3];
  if (digest?.startsWith('sha256:') && digest.length !== 'sha256:'.length + 64) return 'invalid checksum digest length';
  return undefined;
}
