import { loadRuntimeConfig } from './runtime.config';

describe('sensitive property settings', () => {
  it('keeps encryption off and clear reading refused by default, as ONAP does', () => {
    const config = loadRuntimeConfig({});
    expect(config.encryptionEnabled).toBe(false);
    expect(config.encryptionKey).toBeNull();
    expect(config.sensitiveRevealAllowed).toBe(false);
  });

  it('refuses to start with encryption on and no key, naming the variable and the rule', () => {
    expect(() => loadRuntimeConfig({ MSG_ENABLE_ENCRYPTION: 'true' })).toThrow(
      /MSG_ENCRYPTION_KEY: must be set when MSG_ENABLE_ENCRYPTION is true/,
    );
  });

  it('takes the key from the environment when encryption is on', () => {
    const config = loadRuntimeConfig({
      MSG_ENABLE_ENCRYPTION: 'true',
      MSG_ENCRYPTION_KEY: 'a passphrase',
      SENSITIVE_REVEAL_ALLOWED: 'true',
    });
    expect(config.encryptionEnabled).toBe(true);
    expect(config.encryptionKey).toBe('a passphrase');
    expect(config.sensitiveRevealAllowed).toBe(true);
  });

  it('refuses a switch that is not true or false', () => {
    expect(() => loadRuntimeConfig({ MSG_ENABLE_ENCRYPTION: 'yes' })).toThrow(
      /MSG_ENABLE_ENCRYPTION: must be true or false, got "yes"/,
    );
  });
});
