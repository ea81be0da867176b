/**
 * Error answers of the simulated remote, in the local API's shape (`{ status, code, message }`), so a
 * client meets the same errors from both. The remote also answers 5xx that the local API never sends.
 */
import type { FastifyReply } from 'fastify';

export interface SimErrorBody {
  status: number;
  code: string;
  message: string;
  field?: string;
}

const CODES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  429: 'RATE_LIMITED',
  500: 'INTERNAL',
  502: 'BAD_GATEWAY',
  503: 'UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** The code for a status: known ones by name, other 4xx as INVALID_ARGUMENT, other 5xx as INTERNAL. */
export function codeFor(status: number): string {
  return CODES[status] ?? (status < 500 ? 'INVALID_ARGUMENT' : 'INTERNAL');
}

export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'SimError';
  }
}

export function sendSimError(reply: FastifyReply, error: SimError): FastifyReply {
  const body: SimErrorBody = { status: error.status, code: codeFor(error.status), message: error.message };
  if (error.field !== undefined) body.field = error.field;
  return reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8').send(body);
}
