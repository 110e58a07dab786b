@testable import WSCodecs
import WSJSON

/// libFuzzer entry point for the binary codecs of `--codec` (WSCodecs): the
/// MessagePack and CBOR decoders read what peers send, the encoders what
/// stdin sends. Built and run by `Tests/fuzz/run.sh codecs`; not part of
/// the package.
///
/// The first input byte picks the target, the rest is its input:
/// 0 and 1 decode a MessagePack / CBOR message, 2 and 3 encode a JSON text
/// into MessagePack / CBOR. Every target checks invariants with `check`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    let format: BinaryFormat = data[0] & 1 == 0 ? .msgpack : .cbor
    if data[0] & 2 == 0 { FuzzCodecs.decode(input, format) } else { FuzzCodecs.encode(input, format) }
    return 0
}

/// A failed invariant: stop with the reason (libFuzzer keeps the input).
func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition { fatalError("fuzz invariant: " + what()) }
}

enum FuzzCodecs {
    /// One transcoder per format for the whole run, as wspipe keeps one:
    /// what a message leaves in the buffers must not change the next one.
    nonisolated(unsafe) static let transcoders = [BinaryFormat.msgpack: Transcoder(.msgpack, maxJSONBytes: 1 << 20),
                                                  .cbor: Transcoder(.cbor, maxJSONBytes: 1 << 20)]

    /// A message: either an error inside the input, or JSON that is valid,
    /// compact, and comes back the same through the encoder and the decoder.
    static func decode(_ input: UnsafeRawBufferPointer, _ format: BinaryFormat) {
        let codec = transcoders[format]!
        let json: [UInt8]
        do throws(CodecError) {
            json = Array(try codec.decode(input))
        } catch {
            check(error.offset >= 0 && error.offset <= input.count, "error offset \(error.offset) outside \(input.count) bytes")
            check(!error.reason.isEmpty, "an error without a reason")
            return
        }
        let validation = json.withUnsafeBytes { JSONScanner.validate($0) }
        check(validation == .valid(needsCompaction: false), "decoded JSON is \(validation): \(String(decoding: json, as: UTF8.self))")
        let again: [UInt8]
        do {
            let message = try json.withUnsafeBytes { Array(try codec.encode($0)) }
            again = try message.withUnsafeBytes { Array(try codec.decode($0)) }
        } catch {
            check(false, "decoded JSON does not come back: \(error): \(String(decoding: json, as: UTF8.self))")
            return
        }
        check(again == json, "JSON changed on the way back: \(String(decoding: json, as: UTF8.self)) -> \(String(decoding: again, as: UTF8.self))")
    }

    /// A JSON text: the encoder accepts only what the JSON validator
    /// accepts, and what it makes decodes and encodes to the same bytes.
    static func encode(_ input: UnsafeRawBufferPointer, _ format: BinaryFormat) {
        let codec = transcoders[format]!
        let message: [UInt8]
        do throws(CodecError) {
            message = Array(try codec.encode(input))
        } catch {
            check(error.offset >= 0 && error.offset <= input.count, "error offset \(error.offset) outside \(input.count) bytes")
            return
        }
        check(JSONScanner.validate(input).isValid, "the encoder took what the JSON validator refuses")
        do {
            let json = try message.withUnsafeBytes { Array(try codec.decode($0)) }
            let again = try json.withUnsafeBytes { Array(try codec.encode($0)) }
            check(again == message, "bytes changed on the way back: \(String(decoding: json, as: UTF8.self))")
        } catch {
            check(false, "an encoded message does not decode: \(error)")
        }
    }
}
