import * as sdk from '@acm/participant-sdk';
import * as provider from '@acm/participant-sdk/provider';

/** The resource-provider kit is its own entry point: a plain participant's import carries none of it. */
describe('the SDK entry points', () => {
  const kit = [
    'ResourceProviderHandler',
    'ResourceClientError',
    'ResourceCallFailedError',
    'decideDeploy',
    'decideUndeploy',
    'withRetry',
    'DEFAULT_RESOURCE_RETRY_POLICY',
  ];

  it('exports the provider kit from @acm/participant-sdk/provider', () => {
    expect(Object.keys(provider)).toEqual(expect.arrayContaining(kit));
  });

  it('leaves the provider kit out of @acm/participant-sdk', () => {
    expect(Object.keys(sdk).filter((name) => kit.includes(name))).toEqual([]);
    expect(Object.keys(sdk)).toContain('Participant');
  });
});
