/** The error model of the local API (docs/api.md#errors): one JSON shape, one status per code. */
import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import { bodyTooLargeMessage } from '../../shared/bodyLimit';
import type { ErrorBody } from '../../shared/schemas';

export type ErrorCode = ErrorBody['code'];

const STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  /** Only the control channel, while its instance shuts down (docs/decisions.md, "Beside a running instance"). */
  UNAVAILABLE: 503,
};

export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
    /** HTTP's own status where it has one for the case (413, 431), the code staying the table's. */
    status: number = STATUS[code],
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = status;
  }
}

/**
 * 413 for a body over the server's limit: a bad request (`INVALID_ARGUMENT`), with HTTP's status for it,
 * as 431 for headers (docs/decisions.md, "Local API"). The web UI's RPC says the same in its own shape.
 */
export function bodyTooLarge(limitBytes: number): ApiError {
  return new ApiError('INVALID_ARGUMENT', bodyTooLargeMessage(limitBytes), undefined, {}, 413);
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  const body: ErrorBody = { status: error.statusCode, code: error.code, message: error.message };
  if (error.field !== undefined) body.field = error.field;
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(body);
}

/** Messages quote at most this much of what the client sent (a path, an id). */
const QUOTE_LIMIT = 200;

/** The client's text, cut to a readable length for a message. */
export function quote(text: string): string {
  return text.length <= QUOTE_LIMIT ? text : `${text.slice(0, QUOTE_LIMIT)}… (${text.length} characters)`;
}

/**
 * What Node's HTTP parser refused, before Fastify saw a request. The table's codes keep their meaning;
 * the status says the protocol-level reason where HTTP has one (408, 431), with the code of its family.
 */
export function parserRefusal(error: NodeJS.ErrnoException & { reason?: string }): {
  status: number;
  error: ApiError;
} {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        error: new ApiError('INVALID_ARGUMENT', 'the request headers are over the 16 KB limit'),
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        error: new ApiError('INVALID_ARGUMENT', 'the request did not arrive in time'),
      };
    case 'HPE_INVALID_METHOD':
      return { status: 405, error: methodNotAllowed('the method') };
    default: {
      // llhttp's reasons are fixed texts ("Invalid method encountered"), never the client's bytes.
      const reason = error.reason ? `: ${error.reason.replace(/\.$/, '')}` : '';
      return {
        status: 400,
        error: new ApiError(
          'INVALID_ARGUMENT',
          `not a valid HTTP/1.1 request${reason} (the request line and headers must be printable ASCII)`,
        ),
      };
    }
  }
}

/** 405 for a method the server never serves (unknown to Node, or CONNECT). */
export function methodNotAllowed(method: string): ApiError {
  return new ApiError(
    'METHOD_NOT_ALLOWED',
    `${method} is not allowed: the API answers GET and HEAD (the web UI of serve --ui also POST /rpc/<call>)`,
    undefined,
    { Allow: 'GET, HEAD' },
  );
}

/** A whole HTTP/1.1 response in the error shape, for a socket Fastify never turned into a request. */
export function rawErrorResponse(error: ApiError, status = error.statusCode): string {
  const body: ErrorBody = { status, code: error.code, message: error.message };
  const json = JSON.stringify(body);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    'Cache-Control': 'no-store',
    Connection: 'close',
    ...error.headers,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('\r\n')}\r\n\r\n${json}`;
}
