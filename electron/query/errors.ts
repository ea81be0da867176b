/** A request the query layer refuses: the API maps it to 400 INVALID_ARGUMENT naming `field`. */
export class InvalidArgument extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidArgument';
  }
}
