import { optionalString, invalid } from './request-parsing';

/** The `showSensitive` query parameter: `true` asks for sensitive values in clear (granted by configuration). */
export function parseShowSensitive(query: Record<string, unknown>): boolean {
  const text = optionalString('showSensitive', query['showSensitive'])?.toLowerCase();
  if (text === undefined || text === 'false') {
    return false;
  }
  if (text !== 'true') {
    throw invalid(`showSensitive: must be true or false, got "${text}"`);
  }
  return true;
}
