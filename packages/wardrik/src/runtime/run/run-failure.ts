/** Thrown inside the driver to end the run as failed with a message for its caller. */
export class RunFailure extends Error {}
