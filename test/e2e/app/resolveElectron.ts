/** Module-resolution hook: the specifier `electron` resolves to the fake; everything else as usual. */
import type { InitializeHook, ResolveHook } from 'node:module';

let fake = '';

export const initialize: InitializeHook<{ fake: string }> = (data) => {
  fake = data.fake;
};

export const resolve: ResolveHook = (specifier, context, nextResolve) =>
  specifier === 'electron'
    ? { url: fake, format: 'module', shortCircuit: true }
    : nextResolve(specifier, context);
