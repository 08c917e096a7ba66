// Owns time. Services never call Date.now(); tests move a ManualClock instead of sleeping.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  private t: number;
  constructor(start: Date | number = Date.now()) {
    this.t = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(at: Date | number): void {
    this.t = typeof at === 'number' ? at : at.getTime();
  }
}
