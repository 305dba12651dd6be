import BTLensCapture
import BTLensCore
import BTLensCrypto

/// The over-the-air samples in Captures/, built by script as the HCI ones are: a plain capture, a
/// legacy Just Works pairing whose keys the capture gives away, and an encryption with a key the
/// user gives, paused and restarted.
public enum SnifferSamples {
    public struct Sample {
        public var file: String
        public var bytes: [UInt8]
        /// The options its snapshots are rendered with (a key to give).
        public var options: [String]
    }

    public static var all: [Sample] {
        [
            Sample(file: "le_sniffer_plain.pcap", bytes: SnifferCapture.bytes(.leWithPseudoHeader), options: []),
            Sample(file: "le_sniffer_just_works.pcap", bytes: justWorks(), options: []),
            Sample(
                file: "le_sniffer_ltk.pcapng", bytes: givenKey(),
                options: ["--ltk", "\(SnifferCapture.peripheral)=\(sampleLTK.hex)"]),
        ]
    }

    /// The Core specification's LE encryption sample data (v5.4 Vol 6 Part C §1): its LTK, and
    /// LL_ENC_REQ (Rand, EDIV, SKDm, IVm) and LL_ENC_RSP (SKDs, IVs) as the PDUs carry them.
    public static let sampleLTK = Key128(hex: "4C68384139F574D836BCF34E9DFB01BF")!
    static let sampleRequest: [UInt8] =
        [0x03, 0x90, 0x78, 0x56, 0x34, 0x12, 0xef, 0xcd, 0xab, 0x74, 0x24]
        + [0x13, 0x02, 0xf1, 0xe0, 0xdf, 0xce, 0xbd, 0xac, 0x24, 0xab, 0xdc, 0xba]
    static let sampleResponse: [UInt8] =
        [0x04, 0x79, 0x68, 0x57, 0x46, 0x35, 0x24, 0x13, 0x02, 0xbe, 0xba, 0xaf, 0xde]

    static let thirdAccessAddress: UInt32 = 0x2c91_5e07

    /// An LE legacy pairing with Just Works (nRF Sniffer, 272), its STK-encrypted key distribution and a
    /// read; then the devices reconnect and encrypt with the LTK that pairing distributed.
    static func justWorks() -> [UInt8] {
        var s = SnifferCapture.Script()
        let p = SnifferCapture.self
        s.adv(5, tx: 0, rx: 1, p.central.wire + p.peripheral.wire + p.connectData(p.firstAccessAddress))
        var link = AirLink(p.firstAccessAddress)
        JustWorksPairing.run(&s, &link)
        link.event(&s, .att([0x0a, 0x03, 0x00]), .att([0x0b] + Array("Aurora".utf8)))
        link.event(&s, .control([0x02, 0x13]), nil)
        s.adv(5, tx: 0, rx: 1, p.central.wire + p.peripheral.wire + p.connectData(p.secondAccessAddress))
        var again = AirLink(p.secondAccessAddress)
        let request: [UInt8] = [0x03] + JustWorksPairing.rand + [0x34, 0x12] + Array(repeating: 0x5a, count: 12)
        let response: [UInt8] = [0x04] + Array(repeating: 0xa5, count: 12)
        startEncryption(&s, &again, ltk: JustWorksPairing.ltk, request, response)
        again.event(&s, .att([0x12, 0x10, 0x00, 0x01, 0x00]), .att([0x13]))
        again.event(&s, nil, .att([0x1b, 0x0f, 0x00, 0x55]))
        again.event(&s, .control([0x02, 0x13]), nil)
        return bytes(s, .nordic, .pcap(nanoseconds: false))
    }

    /// A connection encrypted with the sample LTK (given with --ltk): a read, a notification the
    /// sniffer did not hear, encryption paused and restarted with new session parameters, a write.
    static func givenKey() -> [UInt8] {
        var s = SnifferCapture.Script()
        let p = SnifferCapture.self
        s.adv(5, tx: 0, rx: 1, p.central.wire + p.peripheral.wire + p.connectData(thirdAccessAddress))
        var link = AirLink(thirdAccessAddress)
        link.event(&s, .att([0x02, 0xf7, 0x00]), .att([0x03, 0x40, 0x00]))
        startEncryption(&s, &link, ltk: sampleLTK, sampleRequest, sampleResponse)
        link.event(&s, .att([0x0a, 0x03, 0x00]), .att([0x0b] + Array("Aurora".utf8)))
        link.event(&s, nil, nil)
        link.send(&s, AirLink.central, .empty)
        link.send(&s, AirLink.peripheral, .att([0x1b, 0x0f, 0x00, 0x50]), heard: false)
        link.event(&s, nil, .att([0x1b, 0x0f, 0x00, 0x51]))
        // LL_PAUSE_ENC_REQ, the peripheral's LL_PAUSE_ENC_RSP encrypted, the central's in plaintext.
        link.event(&s, .control([0x0a]), .control([0x0b]))
        link.plaintext(AirLink.central)
        link.plaintext(AirLink.peripheral)
        link.event(&s, .control([0x0b]), nil)
        let request = Array(sampleRequest.prefix(11)) + Array(repeating: 0x42, count: 12)
        startEncryption(&s, &link, ltk: sampleLTK, request, [0x04] + Array(repeating: 0x24, count: 12))
        link.event(&s, .att([0x12, 0x10, 0x00, 0x01, 0x00]), .att([0x13]))
        link.event(&s, .control([0x02, 0x13]), nil)
        return bytes(s, .leWithPseudoHeader, .pcapng(tsresol: nil))
    }

    /// LL_ENC_REQ, LL_ENC_RSP, LL_START_ENC_REQ in plaintext, then both LL_START_ENC_RSP encrypted.
    static func startEncryption(
        _ s: inout SnifferCapture.Script, _ link: inout AirLink, ltk: Key128, _ request: [UInt8], _ response: [UInt8]
    ) {
        link.event(&s, .control(request), .control(response))
        link.event(&s, nil, .control([0x05]))
        link.encrypt(ltk: ltk, request: request, response: response)
        link.event(&s, .control([0x06]), .control([0x06]))
    }

    static func bytes(
        _ s: SnifferCapture.Script, _ link: PcapFileWriter.LinkType, _ layout: PcapFileWriter.Layout
    ) -> [UInt8] {
        var w = PcapFileWriter(link: link, layout: layout)
        for r in s.records { w.add(r) }
        return w.bytes
    }
}

/// LE legacy pairing (Core v5.4 Vol 3 Part H §2.3.5): the confirm values c1 gives for `tk` (0 for
/// Just Works, else the passkey), the STK s1 gives, and the peripheral's LTK with its EDIV and Rand,
/// distributed over the STK-encrypted link.
public enum JustWorksPairing {
    /// NoInputNoOutput, no OOB, bonding, 16-octet keys, the responder distributes its LTK.
    static let request: [UInt8] = [0x01, 0x03, 0x00, 0x01, 0x10, 0x00, 0x01]
    static let response: [UInt8] = [0x02, 0x03, 0x00, 0x01, 0x10, 0x00, 0x01]
    static let mrand: [UInt8] = (0..<16).map { UInt8(0x10 + $0) }
    static let srand: [UInt8] = (0..<16).map { UInt8(0xe0 - $0) }
    static let ltk = Key128(hex: "0123456789ABCDEF0F1E2D3C4B5A6978")!
    static let rand: [UInt8] = [0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]

    static func run(_ s: inout SnifferCapture.Script, _ link: inout AirLink, tk: UInt32 = 0) {
        let p = SnifferCapture.self
        // A passkey: the initiator displays it, the responder types it in (KeyboardOnly, MITM).
        let (q, r) =
            tk == 0
            ? (request, response)
            : ([0x01, 0x00, 0x00, 0x05, 0x10, 0x00, 0x01], [0x02, 0x02, 0x00, 0x05, 0x10, 0x00, 0x01])
        let pairing = LegacyPairing(
            pairingRequest: q, pairingResponse: r, initiatorType: 0, initiator: p.central.wire,
            responderType: 1, responder: p.peripheral.wire)!
        link.event(&s, .smp(q), .smp(r))
        let mconfirm = pairing.confirm(tk: tk, rand: mrand)!
        let sconfirm = pairing.confirm(tk: tk, rand: srand)!
        link.event(&s, .smp([0x03] + mconfirm), .smp([0x03] + sconfirm))
        link.event(&s, .smp([0x04] + mrand), .smp([0x04] + srand))
        let stk = LegacyPairing.stk(tk: tk, srand: srand, mrand: mrand)!
        let zero: [UInt8] = [0x03] + Array(repeating: 0, count: 10)
        SnifferSamples.startEncryption(
            &s, &link, ltk: stk, zero + Array(repeating: 0x77, count: 12), [0x04] + Array(repeating: 0x99, count: 12))
        link.event(&s, nil, .smp([0x06] + ltk.littleEndian))
        link.event(&s, nil, .smp([0x07, 0x34, 0x12] + rand))
    }

    /// A capture of a legacy pairing with `tk`, then a read over the STK-encrypted link (272).
    public static func capture(tk: UInt32) -> [UInt8] {
        var s = SnifferCapture.Script()
        let p = SnifferCapture.self
        s.adv(5, tx: 0, rx: 1, p.central.wire + p.peripheral.wire + p.connectData(p.firstAccessAddress))
        var link = AirLink(p.firstAccessAddress)
        run(&s, &link, tk: tk)
        link.event(&s, .att([0x0a, 0x03, 0x00]), .att([0x0b, 0x68, 0x69]))
        return SnifferSamples.bytes(s, .nordic, .pcap(nanoseconds: false))
    }
}
