/** The error envelope every route uses: {error: {status, message}}. */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

export interface ErrorEnvelope {
  error: { status: number; message: string };
}

export function envelope(status: number, message: string): ErrorEnvelope {
  return { error: { status, message } };
}

/** Every status an error may carry, with the text used in the OpenAPI document. */
export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request: invalid JSON, or a body that is not a JSON object',
  401: 'The API key is missing or invalid',
  404: 'No such route',
  405: 'Method not allowed on this route (see the Allow header)',
  413: 'Request body larger than 16 KiB',
  415: 'Content-Type is not application/json',
  500: 'Unexpected server error',
  502: 'The upstream (blog feed) is unreachable or invalid and no earlier copy exists',
  503: 'Temporarily unavailable: writes disabled, status file unreadable, or shutting down',
};

export const API_KEY_MESSAGE = 'API key is missing or invalid';
