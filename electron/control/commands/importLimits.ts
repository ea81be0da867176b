/**
 * The default and the highest `import --max-size` in MiB (the highest stays under V8's longest string):
 * their own file, so the CLI's help loads none of the import.
 */
export const DEFAULT_IMPORT_MIB = 256;
export const MAX_IMPORT_MIB = 500;
