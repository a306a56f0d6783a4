/** What the sandbox processor does with a card: kept with each tokenized card, decided by its number. */
export type SandboxOutcome = 'succeed' | 'requires_3ds' | 'insufficient_funds' | 'processing_error';
