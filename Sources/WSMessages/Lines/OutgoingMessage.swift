/// An outgoing message, pointing at bytes valid only for the call it is passed to.
public enum OutgoingMessage {
    case text(UnsafeRawBufferPointer)
    case binary(UnsafeRawBufferPointer)
}
