import { readFileSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import { AcmctlError, EXIT } from './exit-codes';

/** A file's object, read as JSON or else as YAML (JSON first: its error messages are the more precise). */
export function parseDocument(path: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (jsonError) {
    try {
      parsed = loadYaml(text);
    } catch (yamlError) {
      const reason = (error: unknown): string =>
        error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      throw new AcmctlError(
        EXIT.USAGE,
        `${path}: neither JSON nor YAML\n  as JSON: ${reason(jsonError)}\n  as YAML: ${reason(yamlError)}`,
      );
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AcmctlError(EXIT.USAGE, `${path}: must hold one object (a mapping), got ${describe(parsed)}`);
  }
  return parsed as Record<string, unknown>;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) {
    return 'nothing';
  }
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

export function readDocument(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AcmctlError(EXIT.USAGE, `${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseDocument(path, text);
}
