/** The successful envelope of the subscription, plan and customer endpoints. */
export const envelope = <T>(data: T) => ({ success: true as const, errorCode: null, errorMessage: null, data });
