export * from './resend-schedule';
export * from './retry-policy';
export * from './pause';
export * from './no-progress';
export * from './cancel';
export * from './supersede';
export * from './wait-condition';
export * from './control-settings';
