import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

final class ACLReassemblerTests: XCTestCase {
    let key = ACLKey(ConnectionKey(index: 0, handle: 0x40), .sent)
    /// An L2CAP basic frame: length 7 (LE), CID 0x0004 (ATT), then a Write Command.
    let pdu: [UInt8] = [0x07, 0x00, 0x04, 0x00, 0x52, 0x13, 0x00, 0xa5, 0x01, 0x20, 0x07]

    func push(_ r: inout ACLReassembler, _ fragments: [[UInt8]]) -> ([L2CAPPDU], [String]) {
        var pdus: [L2CAPPDU] = []
        var ids: [String] = []
        for (i, f) in fragments.enumerated() {
            let out = r.push(key, boundary: i == 0 ? 0b10 : 0b01, fragment: f[...], record: i + 1, cutByCapture: false)
            if let p = out.pdu { pdus.append(p) }
            ids += out.diagnostics.map(\.id)
        }
        return (pdus, ids)
    }

    /// Fragments of every size, cut inside the basic header too: one PDU, from the first record.
    func testWholeByteByByteAndSplitAtEveryOffset() {
        struct Reassembled: Equatable {
            var pdus: [[UInt8]], cids: [UInt16], firstRecords: [Int], ids: [String], inProgress: Int
        }
        func reassemble(_ fragments: [[UInt8]]) -> Reassembled {
            var r = ACLReassembler()
            let (pdus, ids) = push(&r, fragments)
            return Reassembled(
                pdus: pdus.map { Array($0.payload) }, cids: pdus.map(\.cid), firstRecords: pdus.map(\.firstRecord),
                ids: ids, inProgress: r.inProgress)
        }
        XCTAssertEqual(
            reassemble([pdu]),
            Reassembled(pdus: [Array(pdu[4...])], cids: [4], firstRecords: [1], ids: [], inProgress: 0))
        XCTAssertEqual(FramerVerifier.disagreements(pdu, reassemble), [])
    }

    func testErrorBranches() {
        var r = ACLReassembler()
        // A continuation before any start: the capture began mid-PDU.
        XCTAssertEqual(
            r.push(key, boundary: 0b01, fragment: [1, 2][...], record: 1, cutByCapture: false).diagnostics.map(\.id),
            ["l2cap.continuation_at_capture_start"])
        _ = r.push(key, boundary: 0b10, fragment: pdu[...], record: 2, cutByCapture: false)
        XCTAssertEqual(
            r.push(key, boundary: 0b01, fragment: [1][...], record: 3, cutByCapture: false).diagnostics.map(\.id),
            ["l2cap.unexpected_continuation"])
        _ = r.push(key, boundary: 0b10, fragment: pdu[..<5], record: 4, cutByCapture: false)
        let restart = r.push(key, boundary: 0b10, fragment: pdu[...], record: 5, cutByCapture: false)
        XCTAssertEqual(restart.diagnostics.map(\.id), ["l2cap.unexpected_start"])
        XCTAssertEqual(restart.dropped, 5)
        XCTAssertNotNil(restart.pdu)
        let long = r.push(key, boundary: 0b10, fragment: (pdu + [0xee, 0xee])[...], record: 6, cutByCapture: false)
        XCTAssertEqual(long.diagnostics.map(\.id), ["l2cap.overlength"])
        XCTAssertEqual(long.pdu.map { $0.payload.count }, 7)
        // The capture cut a start fragment: what there is goes up marked truncated; its continuation is expected.
        let cut = r.push(key, boundary: 0b10, fragment: pdu[..<6], record: 7, cutByCapture: true)
        XCTAssertEqual(cut.pdu?.truncated, true)
        XCTAssertEqual(
            r.push(key, boundary: 0b01, fragment: [1][...], record: 8, cutByCapture: false).diagnostics.map(\.id),
            ["l2cap.continuation_after_cut"])
        _ = r.push(key, boundary: 0b10, fragment: pdu[..<2], record: 9, cutByCapture: false)
        XCTAssertEqual(r.finish().map(\.1.id), ["l2cap.header_cut"])
        _ = r.push(key, boundary: 0b10, fragment: pdu[..<6], record: 10, cutByCapture: false)
        XCTAssertEqual(r.close(key.connection).map(\.1.id), ["l2cap.incomplete"])
        XCTAssertEqual(r.inProgress, 0)
    }

    func testConnectionsAndDirectionsDoNotMix() {
        var r = ACLReassembler()
        let other = ACLKey(ConnectionKey(index: 0, handle: 0x41), .sent)
        let back = ACLKey(ConnectionKey(index: 0, handle: 0x40), .received)
        XCTAssertNil(r.push(key, boundary: 0b10, fragment: pdu[..<3], record: 1, cutByCapture: false).pdu)
        XCTAssertNil(r.push(other, boundary: 0b10, fragment: pdu[..<8], record: 2, cutByCapture: false).pdu)
        XCTAssertNil(r.push(back, boundary: 0b10, fragment: pdu[..<1], record: 3, cutByCapture: false).pdu)
        XCTAssertNotNil(r.push(other, boundary: 0b01, fragment: pdu[8...], record: 4, cutByCapture: false).pdu)
        XCTAssertNotNil(r.push(key, boundary: 0b01, fragment: pdu[3...], record: 5, cutByCapture: false).pdu)
        XCTAssertNotNil(r.push(back, boundary: 0b01, fragment: pdu[1...], record: 6, cutByCapture: false).pdu)
    }

    /// Closing one link mid-PDU (its slot goes, the others' move in the table) leaves the PDUs of
    /// the others in progress, whichever of them came last.
    func testClosingALinkLeavesTheOthersInProgress() {
        var r = ACLReassembler()
        let other = ACLKey(ConnectionKey(index: 0, handle: 0x41), .sent)
        let back = ACLKey(ConnectionKey(index: 0, handle: 0x40), .received)
        XCTAssertNil(r.push(key, boundary: 0b10, fragment: pdu[..<3], record: 1, cutByCapture: false).pdu)
        XCTAssertNil(r.push(back, boundary: 0b10, fragment: pdu[..<5], record: 2, cutByCapture: false).pdu)
        XCTAssertNil(r.push(other, boundary: 0b10, fragment: pdu[..<8], record: 3, cutByCapture: false).pdu)
        XCTAssertEqual(r.close(other.connection).map(\.1.id), ["l2cap.incomplete"])
        XCTAssertEqual(
            r.push(key, boundary: 0b01, fragment: pdu[3...], record: 4, cutByCapture: false).pdu.map {
                Array($0.payload)
            },
            Array(pdu[4...]))
        XCTAssertEqual(
            r.push(back, boundary: 0b01, fragment: pdu[5...], record: 5, cutByCapture: false).pdu.map {
                Array($0.payload)
            },
            Array(pdu[4...]))
        XCTAssertEqual(
            r.push(other, boundary: 0b01, fragment: [1][...], record: 6, cutByCapture: false).diagnostics.map(\.id),
            ["l2cap.continuation_at_capture_start"])
        XCTAssertNotNil(r.push(other, boundary: 0b10, fragment: pdu[...], record: 7, cutByCapture: false).pdu)
        XCTAssertEqual(r.inProgress, 0)
    }
}

extension ACLReassemblerTests {
    /// PDUs in progress on all links never hold more than the limit: the one that would pass it is
    /// dropped (said once), its continuations are counted and said once when it would have ended,
    /// and links within the bound reassemble as before.
    func testReassemblyOnAllLinksStaysWithinItsLimit() {
        var r = ACLReassembler(limit: 1_000)
        let links = (0..<4).map { ACLKey(ConnectionKey(index: 0, handle: 0x40 + UInt16($0)), .received) }
        var said: [String: [String]] = [:]
        var delivered: [UInt16] = []
        // Each link: a PDU of 4 + 596 bytes in a start of 100 and five continuations of 100.
        let body = [UInt8](repeating: 0x5a, count: 596)
        let whole = [0x54, 0x02, 0x04, 0x00] + body
        for piece in 0..<6 {
            for (i, link) in links.enumerated() {
                let fragment = whole[piece * 100..<piece * 100 + 100]
                let out = r.push(
                    link, boundary: piece == 0 ? 0b10 : 0b01, fragment: fragment, record: piece * 4 + i + 1,
                    cutByCapture: false)
                XCTAssertLessThanOrEqual(r.buffered, 1_000)
                said[String(link.connection.handle, radix: 16), default: []] += out.diagnostics.map(\.id)
                if let pdu = out.pdu {
                    delivered.append(link.connection.handle)
                    XCTAssertEqual(pdu.payload.count, 596)
                }
            }
        }
        // 2,400 bytes cannot all be held: 0x42 grows past the bound first (round 3), then 0x41 (round 4);
        // what they free lets 0x40 and 0x43 finish.
        XCTAssertEqual(delivered, [0x40, 0x43])
        XCTAssertEqual(said["40"], [])
        XCTAssertEqual(said["43"], [])
        for h in ["41", "42"] {
            XCTAssertEqual(said[h], ["l2cap.reassembly_limit", "l2cap.reassembly_limit"], h)
        }
        XCTAssertEqual(r.buffered, 0)
    }
}
