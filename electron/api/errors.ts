/** The error model of the local API (DESIGN.md §2 "Errors"): one JSON shape, one status per code. */
import type { FastifyReply } from 'fastify';
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
};

export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = STATUS[code];
  }
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
