import BTLensDissect

/// The framings definitions describe beside A5 (issue 42): length first with no magic, delimited
/// and escaped (SLIP, HDLC, COBS, a vendor's start/end/escape), an end byte, fragments. One stream
/// per framing is fed the same values; a stream keeping no payloads must say what one keeping them
/// says, as `stats` runs one.
enum FramingTargets {
    static let formats: [FrameFormat] = {
        let crc16 = CRCCatalogue.named("crc-16/kermit").map { ChecksumAlgorithm.crc($0) } ?? .sum16
        func format(
            _ magic: [UInt8], _ header: [FrameFormat.HeaderField], _ counts: FrameFormat.LengthCounts = .payload,
            _ checksum: FrameFormat.Checksum? = nil, delimiting: Delimiting? = nil, end: [UInt8] = [],
            maxLength: Int? = nil
        ) -> FrameFormat {
            FrameFormat(
                name: "fuzz", magic: magic, header: header, lengthCounts: counts, checksum: checksum,
                delimiting: delimiting, end: end, maxLength: maxLength)
        }
        let command = FrameFormat.HeaderField.command(width: 1, bigEndian: true)
        return [
            // Pebble: [length u2be][endpoint u2be][payload].
            format([], [.length(width: 2, bigEndian: true), .command(width: 2, bigEndian: true)], maxLength: 2048),
            // Nordic UART with SLIP, and the same under HDLC and COBS.
            format(
                [], [command, .sequence], .payload, FrameFormat.Checksum(crc16, bigEndian: false), delimiting: .slip),
            format([], [command], .payload, FrameFormat.Checksum(.xor8), delimiting: .hdlc),
            format([], [.length(width: 2, bigEndian: false), command], .frame, nil, delimiting: .cobs),
            // Sony: 3E … 3C, 3D escapes the marks.
            format(
                [], [command, .sequence, .length(width: 4, bigEndian: true)], .payload, FrameFormat.Checksum(.sum8),
                delimiting: Delimiting(start: 0x3e, end: 0x3c, escape: .xor(escape: 0x3d, mask: 0x10))),
            // Jieli RCSP: FE DC BA, flag, opcode, u2be length, body, EF.
            format(
                [0xfe, 0xdc, 0xba], [.flags, command, .length(width: 2, bigEndian: true)], .payload, nil,
                end: [0xef]),
            // Even G2: AA, type, seq, length, count/index, service u2be, CRC-16 over the payload.
            format(
                [0xaa],
                [
                    .reserved(1), .sequence, .length(width: 1, bigEndian: true), .fragmentCount, .fragmentIndex,
                    .command(width: 2, bigEndian: true),
                ], .payloadAndChecksum,
                FrameFormat.Checksum(crc16, covers: .payload, bigEndian: false)),
        ]
    }()

    static let all = [
        FuzzTarget(
            name: "framings",
            summary: "parts as values of a stream in each non-A5 framing (a part with tag bit 0 set is a hole)",
            seeds: {
                [
                    Parts.encode(
                        formats.map { f -> (UInt8, [UInt8]) in
                            (0, f.encode(command: 0x21, sequence: 1, payload: [0xc0, 0xdb, 0x7e, 0x00, 0x3c]))
                        } + [(1, []), (0, [0xc0, 0x11, 0x22, 0xc0])])
                ]
            },
            run: { bytes in
                for format in formats {
                    var kept = FramedStream(format: format, detect: false)
                    var counted = FramedStream(format: format, detect: false, payloads: .keepNone)
                    for (tag, body) in Parts(bytes) {
                        if tag & 1 == 0 {
                            precondition(samePayloadless(kept.push(body[...]), counted.push(body[...])))
                        } else {
                            _ = (kept.hole(), counted.hole())
                        }
                    }
                    let end = (kept.finish(reason: "the end"), counted.finish(reason: "the end"))
                    precondition(samePayloadless(end.0, end.1))
                }
            })
    ]
}
