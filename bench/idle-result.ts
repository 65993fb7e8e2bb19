/** What the IDLE benchmark reports (a leaf module: the report and the benchmark both read it). */

/** A part that failed, as the report's Failure. */
export interface IdleFailure {
  error: string;
}

export interface IdleWindow {
  windowS: number;
  /** CPU seconds of the process over the window ÷ the window's seconds, in % of one core. */
  cpuPctOfCore: number;
  cpuMs: number;
  /** Both CPUs' busy share over the window (other work on the machine included). */
  machineBusyPct: number;
}

export interface IdleResult {
  participants: number;
  heartbeatMs: number;
  runtime: IdleWindow;
  /** The simulators' CPU over the same window, mean per process (the participant SDK's idle cost). */
  simulatorCpuPctOfCore: number;
  embedded: IdleWindow | IdleFailure;
}
