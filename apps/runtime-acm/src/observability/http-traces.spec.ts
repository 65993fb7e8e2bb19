import { outcomeOf, springSpanName } from './http-traces';

describe('HTTP span names and tags as ONAP names them (Spring)', () => {
  it('names the span "http <method> <uri template>"', () => {
    expect(springSpanName('PUT', '/v2/compositions/{compositionId}')).toBe('http put /v2/compositions/{compositionId}');
    expect(springSpanName('GET', 'UNKNOWN')).toBe('http get UNKNOWN');
  });

  it.each([
    [101, 'INFORMATIONAL'],
    [202, 'SUCCESS'],
    [302, 'REDIRECTION'],
    [404, 'CLIENT_ERROR'],
    [503, 'SERVER_ERROR'],
    [0, 'UNKNOWN'],
    [600, 'UNKNOWN'],
  ])('tags status %p with the outcome %p', (status, outcome) => {
    expect(outcomeOf(status)).toBe(outcome);
  });
});
