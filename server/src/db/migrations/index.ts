// Ordered list of migrations. Add new ones at the end; never edit a released one.
import { Initial1763800000000 } from './1763800000000-initial';

export const MIGRATIONS = [Initial1763800000000];
