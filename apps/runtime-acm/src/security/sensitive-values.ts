import type { CompositionDefinition, InstanceElement, JsonObject } from '@acm/domain';
import { DomainError, MASKED_VALUE } from '@acm/domain';
import type { SensitiveProperties, ServiceTemplate } from '@acm/tosca';
import { sensitivePropertiesOf } from '@acm/tosca';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { ENCRYPTED_PREFIX, PropertyCipher, UndecryptableValueError, isEncrypted } from './property-cipher';

/** What REST answers and history show in place of a sensitive value. */
export const SENSITIVE_MASK = MASKED_VALUE;

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `value` with every string `change` maps replaced, at any depth. */
function mapStrings(value: unknown, change: (text: string, path: string) => string, path = ''): unknown {
  if (typeof value === 'string') {
    return change(value, path);
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => mapStrings(item, change, `${path}[${index}]`));
  }
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, mapStrings(item, change, path === '' ? key : `${path}.${key}`)]),
    );
  }
  return value;
}

/** Replaces every value stored encrypted by the mask: what every REST answer and history entry shows. */
export function maskSensitive<T>(value: T): T {
  return mapStrings(value, (text) => (isEncrypted(text) ? SENSITIVE_MASK : text)) as T;
}

/** How a REST answer shows the sensitive values of what it returns. */
export type Disclosure = <T>(value: T) => T;

/** Where a sensitive value sits in an element's properties, with the value stored there before, if any. */
interface SensitiveSlot {
  readonly path: string;
  readonly holder: JsonObject;
  readonly key: string;
  readonly stored: unknown;
}

/** ONAP's places: the property itself, or one level down inside a map or a list of maps. */
function slotsOf(
  properties: JsonObject,
  stored: JsonObject,
  names: SensitiveProperties,
  basePath: string,
): SensitiveSlot[] {
  const slots: SensitiveSlot[] = [];
  for (const name of new Set([...names.topLevel, ...names.nested])) {
    if (name in properties) {
      slots.push({ path: `${basePath}.${name}`, holder: properties, key: name, stored: stored[name] });
      continue;
    }
    for (const [outer, value] of Object.entries(properties)) {
      const storedOuter = stored[outer];
      const holders: Array<[JsonObject, unknown, string]> = Array.isArray(value)
        ? value.flatMap((item, index): Array<[JsonObject, unknown, string]> =>
            isPlainObject(item)
              ? [[item, Array.isArray(storedOuter) ? storedOuter[index] : undefined, `${outer}[${index}]`]]
              : [],
          )
        : isPlainObject(value)
          ? [[value, storedOuter, outer]]
          : [];
      for (const [holder, storedHolder, where] of holders) {
        if (name in holder) {
          const storedValue = isPlainObject(storedHolder) ? storedHolder[name] : undefined;
          slots.push({ path: `${basePath}.${where}.${name}`, holder, key: name, stored: storedValue });
        }
      }
    }
  }
  return slots;
}

/**
 * Sensitive properties (`metadata.sensitive: "true"` on the element's node type or on a data type it uses):
 * encrypted before an instance is stored when MSG_ENABLE_ENCRYPTION is on, decrypted only as a message
 * leaves for a participant, masked in REST answers and history unless a caller asks with
 * `showSensitive=true` and SENSITIVE_REVEAL_ALLOWED is on. No value, clear or encrypted, is ever logged.
 */
@Injectable()
export class SensitiveValues {
  private readonly logger = new Logger('SensitiveValues');
  private readonly cipher: PropertyCipher | null;

  constructor(@Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig) {
    this.cipher =
      config.encryptionEnabled && config.encryptionKey !== null ? new PropertyCipher(config.encryptionKey) : null;
  }

  /**
   * The elements as they are stored: each sensitive string encrypted. `stored` are the elements as they
   * were stored before (an update): a value given as the mask keeps the stored one, so an answer read and
   * sent back unchanged does not overwrite the secret with the mask. Refuses, listing every problem, a
   * sensitive value that cannot be encrypted.
   */
  protect(
    definition: CompositionDefinition,
    elements: Readonly<Record<string, InstanceElement>>,
    stored: Readonly<Record<string, InstanceElement>> = {},
  ): Record<string, InstanceElement> {
    const template = definition.serviceTemplate as unknown as ServiceTemplate;
    const problems: string[] = [];
    const protectedElements = Object.fromEntries(
      Object.entries(elements).map(([id, element]): [string, InstanceElement] => {
        const names = sensitivePropertiesOf(template, element.definition.name);
        if (names.topLevel.size === 0 && names.nested.size === 0) {
          return [id, element];
        }
        const properties = structuredClone(element.properties);
        for (const slot of slotsOf(properties, stored[id]?.properties ?? {}, names, `elements.${id}.properties`)) {
          const value = this.protectValue(slot, problems);
          if (value !== undefined) {
            slot.holder[slot.key] = value;
          }
        }
        return [id, { ...element, properties }];
      }),
    );
    if (problems.length > 0) {
      throw new DomainError('VALIDATION_FAILED', problems.join('\n'), { problems });
    }
    return protectedElements;
  }

  private protectValue(slot: SensitiveSlot, problems: string[]): unknown {
    const value = slot.holder[slot.key];
    if (value === SENSITIVE_MASK && isEncrypted(slot.stored)) {
      return slot.stored;
    }
    if (this.cipher === null || value === null || value === undefined) {
      return undefined;
    }
    if (value === SENSITIVE_MASK) {
      problems.push(`${slot.path}: ${SENSITIVE_MASK} is how answers mask a sensitive value; give the value itself`);
      return undefined;
    }
    if (isEncrypted(value)) {
      try {
        this.cipher.decrypt(value);
      } catch (error) {
        if (!(error instanceof UndecryptableValueError)) {
          throw error;
        }
        problems.push(
          `${slot.path}: a value starting with ${ENCRYPTED_PREFIX} must be one encrypted with this runtime's ` +
            `MSG_ENCRYPTION_KEY (${error.message})`,
        );
      }
      return undefined;
    }
    if (typeof value !== 'string') {
      problems.push(
        `${slot.path}: a sensitive property (metadata.sensitive) must be a string to be encrypted, got ` +
          (Array.isArray(value) ? 'a list' : typeof value),
      );
      return undefined;
    }
    return this.cipher.encrypt(value);
  }

  /**
   * A message text with every encrypted value in clear, as the participant must receive it. Called as the
   * message leaves (the outbox keeps the encrypted form). A value this key cannot read is sent as stored,
   * and its place (never the value) is logged.
   */
  revealInMessage(value: string): string {
    const cipher = this.cipher;
    if (cipher === null || !value.includes(`"${ENCRYPTED_PREFIX}`)) {
      return value;
    }
    const message = JSON.parse(value) as unknown;
    return JSON.stringify(
      mapStrings(message, (text, path) => {
        if (!isEncrypted(text)) {
          return text;
        }
        try {
          return cipher.decrypt(text);
        } catch (error) {
          this.logger.error(
            `Sent ${path} as stored: ${error instanceof Error ? error.message : String(error)}; ` +
              'was MSG_ENCRYPTION_KEY changed?',
          );
          return text;
        }
      }),
    );
  }

  /**
   * `value` with every encrypted string this key reads in clear, so a plan can tell whether a sensitive value
   * changes (each encryption of one value differs). Only for comparing: what is answered is masked by the caller.
   */
  inClearForComparison<T>(value: T): T {
    const cipher = this.cipher;
    if (cipher === null) {
      return value;
    }
    return mapStrings(value, (text) => {
      if (!isEncrypted(text)) {
        return text;
      }
      try {
        return cipher.decrypt(text);
      } catch {
        return text;
      }
    }) as T;
  }

  /**
   * How an answer shows sensitive values: masked, or in clear when the caller asked with
   * `showSensitive=true` and SENSITIVE_REVEAL_ALLOWED is on.
   */
  disclosure(showSensitive: boolean): Disclosure {
    if (!showSensitive) {
      return maskSensitive;
    }
    if (!this.config.sensitiveRevealAllowed) {
      throw new DomainError(
        'VALIDATION_FAILED',
        'showSensitive: answering sensitive values in clear is turned off (SENSITIVE_REVEAL_ALLOWED=false)',
        { parameter: 'showSensitive' },
      );
    }
    const cipher = this.cipher;
    return <T>(value: T): T =>
      mapStrings(value, (text) => {
        if (!isEncrypted(text)) {
          return text;
        }
        if (cipher === null) {
          return SENSITIVE_MASK;
        }
        try {
          return cipher.decrypt(text);
        } catch {
          return SENSITIVE_MASK;
        }
      }) as T;
  }
}
