import { outcomeLabel } from './runtime-metrics';

describe(outcomeLabel.name, () => {
  it.each([
    [101, 'INFORMATIONAL'],
    [200, 'SUCCESS'],
    [204, 'SUCCESS'],
    [302, 'REDIRECTION'],
    [401, 'CLIENT_ERROR'],
    [503, 'SERVER_ERROR'],
  ])('labels status %p as %p', (status, outcome) => {
    expect(outcomeLabel(status)).toBe(outcome);
  });
});
