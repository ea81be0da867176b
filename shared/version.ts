/** The app's version, as package.json says (a test keeps the two equal). */
export const APP_VERSION = '0.2.0';
