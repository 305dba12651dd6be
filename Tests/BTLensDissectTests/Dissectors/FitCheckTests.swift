import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// A stream whose dissector fails on most frames is said once: not before 32 frames, not at half,
/// never twice, and anew on a new connection (its counts go with the stream).
final class FitCheckTests: XCTestCase {
    /// Names command 0x01 (with a 1-byte field) and nothing else.
    struct OneCommand: MessageDissector {
        var name = "one-command"
        var origin = "/defs/one-command.yaml"
        var bindings: [DissectorBinding] { [] }
        var framing: Framing { .frames(.a5) }
        var pairing: PairingRule? { nil }
        func decode(_ message: Message) -> DecodedMessage {
            guard message.command == 0x01 else { return DecodedMessage() }
            guard message.payload.count == 1 else {
                return DecodedMessage(
                    name: "One",
                    problems: [
                        Diagnostic(
                            message.payload.isEmpty
                                ? DissectorDiagnostics.payloadShort : DissectorDiagnostics.payloadExtra,
                            "One")
                    ])
            }
            return DecodedMessage(name: "One", fields: [MessageField("value", .uint(UInt64(message.payload[0])))])
        }
    }

    static let good = DecodedMessage(name: "One")
    static let unknown = DecodedMessage()
    static let short = DecodedMessage(name: "One", problems: [Diagnostic(DissectorDiagnostics.payloadShort, "")])
    static let extra = DecodedMessage(name: "One", problems: [Diagnostic(DissectorDiagnostics.payloadExtra, "")])

    func testSaidOnceAtTheThirtySecondFrameWhenMostFail() {
        let fit = FitCheck()
        XCTAssertEqual((1...31).map { _ in fit.count(Self.unknown) }, Array(repeating: false, count: 31))
        XCTAssertTrue(fit.count(Self.short))
        XCTAssertEqual((1...100).filter { _ in fit.count(Self.unknown) }, [], "said once")
        XCTAssertEqual(
            fit.note(OneCommand(), stream: ("att_handle", .hex(UInt16(0x0015)))).message,
            "this definition does not seem to fit this device: 32 of 32 frames on att_handle 0x0015 fail to decode with one-command (/defs/one-command.yaml: 31 unknown command, 1 payload short); check its bind: (devices:) and any --decode-as, or run with --no-dissectors"
        )
    }

    /// Half is not most; a frame it decodes is not a failure.
    func testHalfIsNotEnough() {
        let fit = FitCheck()
        for i in 0..<64 { XCTAssertFalse(fit.count(i % 2 == 0 ? Self.good : Self.extra)) }
        XCTAssertFalse(fit.count(Self.good))
        XCTAssertFalse(fit.count(Self.extra), "33 of 66")
        XCTAssertTrue(fit.count(Self.short), "34 of 67")
        XCTAssertEqual(
            fit.note(OneCommand(), stream: ("dlci", .int(4))).fields.map { "\($0.0)=\($0.1)" },
            [
                #"dissector=string("one-command")"#, #"origin=string("/defs/one-command.yaml")"#, "failed=int(34)",
                "frames=int(67)",
            ])
    }

    func testABuiltInDissectorIsNotCalledADefinition() {
        let fit = FitCheck()
        for _ in 0..<32 { _ = fit.count(Self.extra) }
        var builtIn = OneCommand()
        builtIn.origin = "built-in"
        XCTAssertEqual(
            fit.note(builtIn, stream: ("ea_session", .int(3))).message,
            "this dissector does not seem to fit this device: 32 of 32 frames on ea_session 3 fail to decode with one-command (built-in: 32 payload extra)"
        )
    }

    /// Through the analyzer: once per stream and connection, at the frame that decided it, and
    /// again on the next connection, whose streams start their counts anew. A stream that fits is
    /// never said.
    func testOncePerStreamAndConnection() throws {
        var s = LESession()
        for handle: UInt16 in [0x0040, 0x0041] {
            s.connect(handle: handle, address: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11])
            for i in 0..<40 {
                let seq = UInt8(i)
                s.frame(handle: handle, attHandle: 0x0013, .sent, command: 0x01, sequence: seq, payload: [seq])
                s.frame(handle: handle, attHandle: 0x0015, .received, command: 0x02, sequence: seq, payload: [])
            }
            s.disconnect(handle: handle)
        }
        var table = DissectorTable()
        try table.register(OneCommand())
        let decodeAs: [DecodeAs] = [
            .attHandle(0x0013, dissector: "one-command"), .attHandle(0x0015, dissector: "one-command"),
        ]
        let notes = try analyze(s.bytes, dissectors: table, decodeAs: decodeAs).filter {
            $0.diagnostic?.id == "a5.definition.mismatch"
        }
        XCTAssertEqual(notes.map(\.record), [67, 153])
        XCTAssertEqual(notes.map(\.connection), [0x0040, 0x0041])
        XCTAssertEqual(notes.map(\.direction), [.received, .received])
        XCTAssertEqual(notes.map { $0.diagnostic?.field("att_handle") }, [.hex(UInt16(0x0015)), .hex(UInt16(0x0015))])
    }
}
