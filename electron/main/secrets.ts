/**
 * Remote API keys in the app (docs/architecture.md#security): sealed with Electron's safeStorage (the OS keychain) into
 * `sources.api_key_sealed`, never written in plain text, never sent to the window. Where the OS offers
 * no real keychain (Linux with the "basic_text" backend) keys are refused and, as headless, come from
 * the environment.
 */
import { type SecretKeeper, envSecretKeeper } from '../sync/secrets';
import type { ShellDeps } from './types';

const PREFIX = 'safeStorage:';

export function safeStorageSecretKeeper(
  safeStorage: ShellDeps['safeStorage'],
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): SecretKeeper {
  const fromEnv = envSecretKeeper(env, { shared: false });
  const usable =
    safeStorage.isEncryptionAvailable() &&
    !(platform === 'linux' && safeStorage.getSelectedStorageBackend?.() === 'basic_text');
  const open = (sealed: string): string | null => {
    if (!usable || !sealed.startsWith(PREFIX)) return null;
    try {
      return safeStorage.decryptString(Buffer.from(sealed.slice(PREFIX.length), 'base64'));
    } catch {
      // Sealed on another machine or account: the user enters the key again.
      return null;
    }
  };
  return {
    apiKeyFor: (source) =>
      (source.apiKeySealed ? open(source.apiKeySealed) : null) ?? fromEnv.apiKeyFor(source),
    hint: usable
      ? 'enter the key in Settings → Sources'
      : `this system has no keychain for secrets: ${fromEnv.hint}`,
    seal: usable ? (apiKey) => PREFIX + safeStorage.encryptString(apiKey).toString('base64') : undefined,
    unseal: open,
  };
}
