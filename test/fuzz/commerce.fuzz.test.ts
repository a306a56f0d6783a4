// Fuzzes every operation of the Commerce contract; how, and how to run it longer or for one
// operation: checkout.fuzz.test.ts.
import { fuzzContract } from '../support/fuzz/suite.js';

fuzzContract('commerce');
