import BTLensCapture
import BTLensCore
import BTLensCrypto

/// The benchmark's capture as an LE sniffer hears it (scripts/benchmark --sniffer): the LE
/// sessions of `BenchmarkCapture` (Aurora headphones and unbound devices, ATT writes and
/// notifications carrying A5 frames), each LE connection as a CONNECT_IND, its ACL packets as data
/// PDUs of at most 251 bytes each acknowledged by the peer's Empty PDU, and its disconnection as an
/// LL_TERMINATE_IND; pcap of
/// LINKTYPE 256. What a sniffer cannot hear (HCI commands and events, BR/EDR links) is left out.
/// Written in pieces, as the HCI capture is: each session read back from its btsnoop bytes.
/// `encrypted`: each connection encrypts after its CONNECT_IND with the Core specification's sample
/// LTK (`SnifferSamples.sampleLTK`, for `--ltk`), every non-empty PDU with its MIC.
public enum SnifferBenchmark {
    /// Writes about `bytes` of pcap to `write`; returns the records written.
    @discardableResult
    public static func generate(bytes target: Int, encrypted: Bool = false, write: ([UInt8]) -> Void) -> Int {
        var converter = Converter(encrypted: encrypted)
        write(PcapFileWriter(link: .leWithPseudoHeader, layout: .pcap(nanoseconds: false)).bytes)
        var header: [UInt8]?
        BenchmarkCapture.generate(bytes: target) { chunk in
            // The first piece begins with the btsnoop file header; every piece is whole records.
            let head = header ?? Array(chunk.prefix(16))
            header = head
            let body = chunk.starts(with: head) ? Array(chunk.dropFirst(16)) : chunk
            write(converter.convert(head + body))
        }
        return converter.records
    }

    /// HCI records to air records, one btsnoop piece at a time; connections kept across pieces.
    struct Converter {
        private(set) var records = 0
        /// Per LE connection handle: its access address and the next SN of each side.
        private var links: [UInt16: (aa: UInt32, central: UInt8, peripheral: UInt8)] = [:]
        private var opened = 0
        /// Per LE connection handle: whether the central sent its last PDU.
        private var lastSender: [UInt16: Bool] = [:]
        let encrypted: Bool
        /// Per encrypted connection handle: its session and each side's packet counter.
        private var sessions: [UInt16: (cipher: LLCipher, counters: [UInt64])] = [:]

        init(encrypted: Bool) { self.encrypted = encrypted }

        mutating func convert(_ btsnoop: [UInt8]) -> [UInt8] {
            var w = PcapFileWriter(link: .leWithPseudoHeader, layout: .pcap(nanoseconds: false))
            guard var reader = try? CaptureFormat.open(MemorySource(btsnoop)) else { return [] }
            while let item = try? reader.next() {
                guard case .record(let r) = item else { continue }
                for packet in air(r) {
                    records += 1
                    w.add(packet: packet, microseconds: r.timestamp.microseconds)
                }
            }
            return Array(w.bytes.dropFirst(24))
        }

        /// The packets (pseudo-header included) a sniffer hears for HCI record `r`.
        private mutating func air(_ r: CaptureRecord) -> [[UInt8]] {
            let p = Array(r.payload)
            switch r.kind {
            case .event where p.count >= 13 && p[0] == 0x3e && p[2] == 0x01 && p[3] == 0x00:
                let handle = UInt16(p[4]) | UInt16(p[5] & 0x0f) << 8
                opened += 1
                let aa = 0x5065_0000 | UInt32(truncatingIfNeeded: opened) & 0xffff
                links[handle] = (aa, 0, 0)
                let connect = connectIndication(aa, peer: Array(p[8..<14]))
                return [connect] + (encrypted ? startEncryption(handle) : [])
            case .event where p.count >= 6 && p[0] == 0x05 && p[2] == 0x00:
                let handle = UInt16(p[3]) | UInt16(p[4] & 0x0f) << 8
                guard links[handle] != nil else { return [] }
                defer {
                    links[handle] = nil
                    lastSender[handle] = nil
                    sessions[handle] = nil
                }
                return turn(handle, central: true) + [data(handle, central: true, llid: 3, [0x02, 0x13])]
            case .aclData where p.count >= 4:
                let handle = UInt16(p[0]) | UInt16(p[1] & 0x0f) << 8
                guard links[handle] != nil else { return [] }
                let start = p[1] >> 4 & 0x3 != 0b01
                let pieces = stride(from: 4, to: max(p.count, 5), by: 251).map { Array(p[$0..<min($0 + 251, p.count)]) }
                let central = r.direction == .sent
                return pieces.enumerated().flatMap { i, piece in
                    turn(handle, central: central) + [
                        data(handle, central: central, llid: start && i == 0 ? 2 : 1, piece)
                    ]
                }
            default:
                return []
            }
        }

        /// CONNECT_IND from the phone to `peer` (Core v5.4 Vol 6 Part B §2.3.3.1), on channel 37.
        private func connectIndication(_ aa: UInt32, peer: [UInt8]) -> [UInt8] {
            let llData = SnifferCapture.le32(aa) + [0x56, 0x34, 0x12, 2, 0, 0, 24, 0, 0, 0, 72, 0]
            let pdu = [0x05, 34] + SnifferCapture.central.wire + peer + llData + [0xff, 0xff, 0xff, 0xff, 0x1f, 0x07]
            var a = AirPacket()
            (a.channel, a.signal, a.crc) = (37, -55, .valid)
            return a.pseudoHeader + SnifferCapture.le32(0x8e89_bed6) + pdu + [0, 0, 0]
        }

        /// LL_ENC_REQ and LL_ENC_RSP with the specification's sample values, LL_START_ENC_REQ, then
        /// both LL_START_ENC_RSP encrypted (§5.1.3.1).
        private mutating func startEncryption(_ handle: UInt16) -> [[UInt8]] {
            let (q, s) = (SnifferSamples.sampleRequest, SnifferSamples.sampleResponse)
            var out = [data(handle, central: true, llid: 3, q), data(handle, central: false, llid: 3, s)]
            out += turn(handle, central: false) + [data(handle, central: false, llid: 3, [0x05])]
            if let cipher = LLCipher(
                ltk: SnifferSamples.sampleLTK, skdm: q[11..<19], ivm: q[19..<23], skds: s[1..<9], ivs: s[9..<13])
            {
                sessions[handle] = (cipher, [0, 0])
            }
            out += turn(handle, central: true) + [data(handle, central: true, llid: 3, [0x06])]
            return out + [data(handle, central: false, llid: 3, [0x06])]
        }

        /// The sides take turns (§4.5.1): before a side sends twice, its peer's Empty PDU acknowledges
        /// the first, as a sniffer hears it (40 % and 72 % of the records of crackle's and
        /// bsniffhub's captures are Empty PDUs).
        private mutating func turn(_ handle: UInt16, central: Bool) -> [[UInt8]] {
            guard let last = lastSender[handle], last == central else { return [] }
            return [data(handle, central: !central, llid: 1, [])]
        }

        /// A data PDU whose SN and NESN take turns with the other side's (§4.5.9), on channel 12.
        private mutating func data(_ handle: UInt16, central: Bool, llid: UInt8, _ payload: [UInt8]) -> [UInt8] {
            guard var link = links[handle] else { return [] }
            let (sn, nesn) = central ? (link.central, link.peripheral) : (link.peripheral, link.central)
            if central { link.central ^= 1 } else { link.peripheral ^= 1 }
            links[handle] = link
            lastSender[handle] = central
            var a = AirPacket()
            (a.channel, a.signal, a.crc, a.sender) = (12, -55, .valid, central ? .central : .peripheral)
            let first = llid | nesn << 2 | sn << 3
            var payload = payload
            if var session = sessions[handle], !payload.isEmpty {
                let side = central ? 0 : 1
                let counter = session.counters[side]
                payload =
                    session.cipher.encrypt(header: first, plaintext: payload, counter: counter, fromCentral: central)
                    ?? payload
                session.counters[side] += 1
                sessions[handle] = session
            }
            let header = [first, UInt8(truncatingIfNeeded: payload.count)]
            return a.pseudoHeader + SnifferCapture.le32(link.aa) + header + payload + [0, 0, 0]
        }
    }
}
