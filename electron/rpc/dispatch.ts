/**
 * One entry for both transports: checks the call name and its request against the contract's schema,
 * runs the handler, and turns every failure into an RpcError whose message a user can act on. Bad input
 * never reaches a handler, and nothing internal (stack, SQL) crosses to the window.
 */
import { Compile } from 'typebox/compile';
import {
  RPC_CALLS,
  type RpcCall,
  type RpcErrorBody,
  type RpcHandlers,
  RpcError,
  isRpcCall,
} from '../../shared/rpc';
import { InvalidArgument } from '../query/errors';
import { NothingToAcknowledge } from '../knowledge/acknowledge';
import { OrgIdError } from '../store/tables/orgs';
import { SettingsError } from '../store/tables/settings';
import { SnoozeError } from '../store/tables/snoozes';
import { SourceError } from '../store/tables/sources';

export type Dispatch = (name: string, request: unknown) => Promise<unknown>;

const checks = Object.fromEntries(
  Object.entries(RPC_CALLS).map(([name, { request }]) => [name, Compile(request)]),
) as Record<RpcCall, ReturnType<typeof Compile>>;

/** Errors of the engine's parts that describe bad input, with their user-facing message. */
const INVALID_INPUT = [InvalidArgument, OrgIdError, SettingsError, SnoozeError, SourceError];

export function toRpcError(error: unknown, log?: (error: unknown) => void): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof NothingToAcknowledge) return new RpcError('not-found', error.message);
  if (INVALID_INPUT.some((kind) => error instanceof kind))
    return new RpcError('invalid-argument', (error as Error).message);
  log?.(error);
  return new RpcError('internal', 'internal error: the details are in the log');
}

export function errorBody(error: RpcError): RpcErrorBody {
  return { error: { code: error.code, message: error.message } };
}

/** The most useful of the schema's complaints: an unknown field by name, else the first one. */
function describeProblem(
  errors: Iterable<{ instancePath: string; message: string; keyword: string }>,
): string {
  const all = [...errors];
  const unknown = all.find((error) => error.keyword === 'boolean' && error.message === 'schema is false');
  if (unknown) return `unknown field '${unknown.instancePath.replace(/^\//, '')}' in the request`;
  const first = all[0];
  return first ? `request${first.instancePath} ${first.message}` : 'the request is not valid';
}

export function createDispatch(handlers: RpcHandlers, log?: (error: unknown) => void): Dispatch {
  return async (name, request) => {
    if (!isRpcCall(name)) throw new RpcError('not-found', `no such call '${name}'`);
    const check = checks[name];
    // An empty request may arrive as undefined (IPC) or as nothing (HTTP body): null for both.
    const value = request === undefined ? null : request;
    if (!check.Check(value)) {
      throw new RpcError('invalid-argument', `${name}: ${describeProblem(check.Errors(value))}`);
    }
    const handler = handlers[name] as (request: unknown) => Promise<unknown>;
    try {
      return await handler(value);
    } catch (error) {
      throw toRpcError(error, log);
    }
  };
}
