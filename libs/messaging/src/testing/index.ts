/** @acm/messaging/testing — helpers for tests only (the build leaves `testing/` out). */
export * from './recorded-spans';
