/**
 * @acm/input-guards — what every reader of untrusted input (the runtime's REST API, the simulator's control API, the
 * TOSCA library) applies first: one bounded JSON/YAML parser, the text rules, error excerpts and the HTTP Basic check.
 * Framework-free.
 */
export type { BodyFormat, BodyLimits, BodyRefusal, BodyRule, ParsedBody } from './guarded-parse';
export { DEFAULT_BODY_LIMITS, at as lineColumnAt, decodeBody, formatBodyPath, parseBody } from './guarded-parse';
export { MAX_EXCERPT_CHARACTERS, excerpt, shortText } from './excerpt';
export { forbiddenCharacterIn } from './text-rules';
export type { BasicCredentials } from './basic-credentials';
export { basicCredentialsMatch, basicCredentialsOf } from './basic-credentials';
export { answerClientError } from './client-error';
export type { ScryptHash } from './password-hash';
export { DEFAULT_SCRYPT_COST, hashPassword, parsePasswordHash, verifyPassword } from './password-hash';
