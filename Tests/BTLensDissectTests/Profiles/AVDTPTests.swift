import BTLensCore
import XCTest

@testable import BTLensDissect

/// AVDTP signalling messages (AVDTP 1.3 §8), the A2DP codecs they configure (A2DP 1.3 §4) and
/// the joining of fragmented messages (§8.4). Header octet: transaction label (4 bits), packet
/// type (2), message type (2); then RFA (2) and the signal identifier (6).
final class AVDTPTests: XCTestCase {
    static func bytes(_ hex: String) -> [UInt8] {
        hex.split(separator: " ").compactMap { UInt8($0, radix: 16) }
    }

    static func text(_ v: FieldValue) -> String {
        switch v {
        case .int(let i): return "\(i)"
        case .hex(let i, let digits): return Hex.value(i, width: digits)
        case .string(let s): return s
        case .bool(let b): return "\(b)"
        case .bytes(let b): return Hex.string(b)
        case .decimal(let units, let scale): return FieldValue.decimalText(units, scale: scale)
        }
    }

    static func describe(_ s: AVDTPSignal) -> String {
        ([s.name] + s.message.fields.map { "\($0.0)=\(text($0.1))" }).joined(separator: "; ")
    }

    /// The message decoded, as "Name; key=value; …", or the malformed diagnostic's message.
    private func decode(_ hex: String) -> String {
        do {
            return Self.describe(try AVDTPSignal(Self.bytes(hex)[...]))
        } catch {
            return "malformed: " + error.diagnostic.message
        }
    }

    private func signal(_ hex: String) throws -> AVDTPSignal { try AVDTPSignal(Self.bytes(hex)[...]) }

    // MARK: Discover (§8.6)

    func testDiscover() throws {
        // §8.6.1: transaction 0, command, signal 0x01, no parameters.
        XCTAssertEqual(decode("00 01"), "Discover; transaction=0; message_type=command; signal=0x01")
        // §8.6.2: three SEPs of 2 octets: SEID 1, 2 and 5 (<<2), the second in use (0x02);
        // media type audio (0x0_), TSEP sink (0x08) or source.
        XCTAssertEqual(
            decode("02 01 04 08 0a 08 14 00"),
            "Discover; transaction=0; message_type=accept; signal=0x01; seps=1 audio sink, 2 audio sink in use, 5 audio source"
        )
        // §8.6.3: the reject's error code, 0x31 BAD_STATE.
        XCTAssertEqual(
            decode("03 01 31"),
            "Discover; transaction=0; message_type=reject; signal=0x01; error_code=0x31; error_name=Bad State")
        XCTAssertEqual(try signal("02 01 04 08").acpSEIDs, [])
    }

    // MARK: Get Capabilities, Get All Capabilities (§8.7, §8.8) and the codecs (A2DP §4)

    func testGetCapabilitiesSBC() throws {
        // §8.7.1: ACP SEID 1 (0x04).
        let command = try signal("30 02 04")
        XCTAssertEqual(
            Self.describe(command), "Get Capabilities; transaction=3; message_type=command; signal=0x02; acp_seid=1")
        XCTAssertEqual(command.acpSEIDs, [1])
        XCTAssertNil(command.codec)
        // §8.7.2, §8.21.2: Media Transport (LOSC 0); Media Codec (LOSC 6): audio, SBC, A2DP 1.3
        // §4.3.2: every frequency and channel mode (ff), every block length, subband count and
        // allocation method (ff), bitpool 2..53; Content Protection (§8.21.3) SCMS-T 0x0002 (LE).
        XCTAssertEqual(
            decode("32 02 01 00 07 06 00 00 ff ff 02 35 04 02 02 00"),
            "Get Capabilities; transaction=3; message_type=accept; signal=0x02; services=Media Transport, Media Codec, Content Protection; media_type=audio; codec=SBC; sampling_frequencies=16000 32000 44100 48000; channel_modes=mono, dual channel, stereo, joint stereo; block_lengths=4 8 12 16; subbands=4 8; allocation=SNR, loudness; bitpool_min=2; bitpool_max=53; content_protection=SCMS-T"
        )
        // Capabilities are offered, not configured: no codec summary.
        XCTAssertNil(try signal("32 02 01 00 07 06 00 00 ff ff 02 35").codec)
    }

    func testGetCapabilitiesMPEG12() {
        // A2DP §4.4.2: layer III (0x20), CRC (0x10), every channel mode (0x0f); no MPF-2, every
        // frequency (0x3f); VBR (0x8000) and bit rate indexes 1-14 (0x7ffe).
        XCTAssertEqual(
            decode("22 02 01 00 07 06 00 01 3f 3f ff fe 04 02 02 00"),
            "Get Capabilities; transaction=2; message_type=accept; signal=0x02; services=Media Transport, Media Codec, Content Protection; media_type=audio; codec=MPEG-1,2 Audio; sampling_frequencies=16000 22050 24000 32000 44100 48000; channel_modes=mono, dual channel, stereo, joint stereo; layers=III; crc=true; mpf=false; vbr=true; bitrate_indexes=1 2 3 4 5 6 7 8 9 10 11 12 13 14; content_protection=SCMS-T"
        )
    }

    func testGetCapabilitiesAptX() throws {
        // A2DP §4.7.2: non-A2DP codec 0xff, vendor 0x0000004f (APT) LE, codec 0x0001 LE: aptX;
        // one octet as SBC's first: every frequency (0xf0), stereo (0x02).
        let s = try signal("12 02 01 00 07 09 00 ff 4f 00 00 00 01 00 f2 04 02 02 00")
        XCTAssertEqual(
            Self.describe(s),
            "Get Capabilities; transaction=1; message_type=accept; signal=0x02; services=Media Transport, Media Codec, Content Protection; media_type=audio; codec=aptX; sampling_frequencies=16000 32000 44100 48000; channel_modes=stereo; content_protection=SCMS-T"
        )
    }

    func testGetAllCapabilities() {
        // §8.8: Get All Capabilities carries Delay Reporting (§8.21.9, LOSC 0) and categories
        // named only: Reporting (0x02), Recovery (0x03: type, MRWS, MNMP), an unknown 0x09.
        XCTAssertEqual(
            decode("40 0c 08"), "Get All Capabilities; transaction=4; message_type=command; signal=0x0c; acp_seid=2")
        XCTAssertEqual(
            decode("42 0c 01 00 02 00 03 03 01 02 02 08 00 09 01 ee"),
            "Get All Capabilities; transaction=4; message_type=accept; signal=0x0c; services=Media Transport, Reporting, Recovery, Delay Reporting, Unknown (0x09)"
        )
        XCTAssertEqual(
            decode("42 0c"), "Get All Capabilities; transaction=4; message_type=accept; signal=0x0c; services=none")
    }

    // MARK: Set Configuration, Get Configuration, Reconfigure (§8.9–8.11)

    func testSetConfigurationSBC() throws {
        // §8.9.1: ACP SEID 1, INT SEID 1, Media Transport, Media Codec SBC: 48000 Hz (0x10),
        // joint stereo (0x01); 16 blocks (0x10), 8 subbands (0x04), loudness (0x01); bitpool 2..53.
        let s = try signal("40 03 04 04 01 00 07 06 00 00 11 15 02 35")
        XCTAssertEqual(
            Self.describe(s),
            "Set Configuration; transaction=4; message_type=command; signal=0x03; acp_seid=1; int_seid=1; services=Media Transport, Media Codec; media_type=audio; codec=SBC; sampling_frequencies=48000; channel_modes=joint stereo; block_lengths=16; subbands=8; allocation=loudness; bitpool_min=2; bitpool_max=53"
        )
        XCTAssertEqual(s.codec, "SBC 48000 Hz joint stereo, bitpool 2-53")
        XCTAssertEqual(s.acpSEIDs, [1])
        XCTAssertEqual(s.intSEID, 1)
        XCTAssertEqual(s.transaction, 4)
        XCTAssertEqual(s.messageType, .command)
        XCTAssertEqual(s.signal, 0x03)
        XCTAssertEqual(decode("42 03"), "Set Configuration; transaction=4; message_type=accept; signal=0x03")
        // §8.9.3: the failing service category (Media Codec), then the error code: A2DP §5.1.3,
        // 0xc2 NOT_SUPPORTED_CODEC_TYPE.
        XCTAssertEqual(
            decode("43 03 07 c2"),
            "Set Configuration; transaction=4; message_type=reject; signal=0x03; error_code=0xc2; error_name=Not Supported Codec Type; service_category=Media Codec"
        )
    }

    func testGetConfigurationAAC() throws {
        XCTAssertEqual(
            decode("50 04 0c"), "Get Configuration; transaction=5; message_type=command; signal=0x04; acp_seid=3")
        // §8.10.2; A2DP §4.5.2: MPEG-2 AAC LC (0x80); 44100 Hz (0x01); 2 channels (0x04); VBR
        // (0x80) and bit rate 0x04e200 = 320000.
        let s = try signal("52 04 01 00 07 08 00 02 80 01 04 84 e2 00")
        XCTAssertEqual(
            Self.describe(s),
            "Get Configuration; transaction=5; message_type=accept; signal=0x04; services=Media Transport, Media Codec; media_type=audio; codec=MPEG-2,4 AAC; object_types=MPEG-2 AAC LC; sampling_frequencies=44100; channels=2; vbr=true; bitrate=320000"
        )
        XCTAssertEqual(s.codec, "MPEG-2,4 AAC 44100 Hz 2 channels, MPEG-2 AAC LC, 320000 bit/s VBR")
        XCTAssertEqual(
            decode("53 04 12"),
            "Get Configuration; transaction=5; message_type=reject; signal=0x04; error_code=0x12; error_name=Bad ACP SEID"
        )
    }

    func testReconfigure() throws {
        // §8.11.1: ACP SEID 1 and application capabilities only: Media Codec MPEG-1,2 layer III
        // (0x20), joint stereo (0x01); 44100 Hz (0x02); bit rate index 9 (0x0200).
        let s = try signal("60 05 04 07 06 00 01 21 02 02 00")
        XCTAssertEqual(
            Self.describe(s),
            "Reconfigure; transaction=6; message_type=command; signal=0x05; acp_seid=1; services=Media Codec; media_type=audio; codec=MPEG-1,2 Audio; sampling_frequencies=44100; channel_modes=joint stereo; layers=III; crc=false; mpf=false; vbr=false; bitrate_indexes=9"
        )
        XCTAssertEqual(s.codec, "MPEG-1,2 Audio 44100 Hz joint stereo, layer III")
        XCTAssertNil(s.intSEID)
        // §8.11.3: service category, error code (0x29 UNSUPPORTED_CONFIGURATION).
        XCTAssertEqual(
            decode("63 05 07 29"),
            "Reconfigure; transaction=6; message_type=reject; signal=0x05; error_code=0x29; error_name=Unsupported Configuration; service_category=Media Codec"
        )
    }

    func testVendorCodecs() throws {
        // A2DP §4.7.2 (docs/protocols/a2dp-vendor-codecs.md): aptX HD, vendor 0x000000d7, codec
        // 0x0024: 48000 Hz (0x10), stereo (0x02), 4 reserved octets.
        let hd = try signal("70 03 04 04 07 0d 00 ff d7 00 00 00 24 00 12 00 00 00 00")
        XCTAssertEqual(
            Self.describe(hd),
            "Set Configuration; transaction=7; message_type=command; signal=0x03; acp_seid=1; int_seid=1; services=Media Codec; media_type=audio; codec=aptX HD; sampling_frequencies=48000; channel_modes=stereo"
        )
        XCTAssertEqual(hd.codec, "aptX HD 48000 Hz stereo")
        // aptX, vendor 0x0000004f, codec 0x0001: 44100 Hz (0x20), stereo.
        XCTAssertEqual(try signal("70 03 04 04 07 09 00 ff 4f 00 00 00 01 00 22").codec, "aptX 44100 Hz stereo")
        // LDAC, vendor 0x0000012d, codec 0x00aa: 96000 Hz (0x04), then the channel mode stereo (0x01).
        let ldac = try signal("70 03 04 04 07 0a 00 ff 2d 01 00 00 aa 00 04 01")
        XCTAssertEqual(
            Self.describe(ldac),
            "Set Configuration; transaction=7; message_type=command; signal=0x03; acp_seid=1; int_seid=1; services=Media Codec; media_type=audio; codec=LDAC; sampling_frequencies=96000; channel_modes=stereo"
        )
        XCTAssertEqual(ldac.codec, "LDAC 96000 Hz stereo")
        // Named only: aptX Adaptive (0x000000d7/0x00ad), LC3plus (0x000008a9/0x0001), Opus
        // (0x000000e0/0x0001); an unknown vendor by its ids.
        XCTAssertEqual(try signal("70 03 04 04 07 08 00 ff d7 00 00 00 ad 00").codec, "aptX Adaptive")
        XCTAssertEqual(try signal("70 03 04 04 07 09 00 ff a9 08 00 00 01 00 77").codec, "LC3plus")
        XCTAssertEqual(try signal("70 03 04 04 07 09 00 ff e0 00 00 00 01 00 3c").codec, "Opus")
        let unknown = try signal("70 03 04 04 07 0a 00 ff 34 12 00 00 78 56 aa bb")
        XCTAssertEqual(
            Self.describe(unknown),
            "Set Configuration; transaction=7; message_type=command; signal=0x03; acp_seid=1; int_seid=1; services=Media Codec; media_type=audio; codec=vendor 0x00001234/0x5678"
        )
        XCTAssertEqual(unknown.codec, "vendor 0x00001234/0x5678")
    }

    func testOtherCodecTypes() throws {
        // A2DP 1.4 USAC (0x03), ATRAC (0x04): named; a video codec (media type 1, H.263 baseline).
        XCTAssertEqual(try signal("70 03 04 04 07 02 00 03").codec, "MPEG-D USAC")
        XCTAssertEqual(try signal("70 03 04 04 07 09 00 04 00 00 00 00 00 00 00").codec, "ATRAC")
        let video = try signal("70 03 04 04 07 03 10 01 80")
        XCTAssertEqual(video.codec, "H.263 baseline")
        XCTAssertEqual(
            Self.describe(video),
            "Set Configuration; transaction=7; message_type=command; signal=0x03; acp_seid=1; int_seid=1; services=Media Codec; media_type=video; codec=H.263 baseline"
        )
        XCTAssertEqual(try signal("70 03 04 04 07 02 00 09").codec, "Unknown (0x09)")
    }

    // MARK: Open, Start, Close, Suspend, Abort (§8.12–8.16)

    func testStreamCommands() throws {
        XCTAssertEqual(decode("50 06 04"), "Open; transaction=5; message_type=command; signal=0x06; acp_seid=1")
        XCTAssertEqual(decode("52 06"), "Open; transaction=5; message_type=accept; signal=0x06")
        XCTAssertEqual(
            decode("53 06 31"),
            "Open; transaction=5; message_type=reject; signal=0x06; error_code=0x31; error_name=Bad State")
        // §8.13.1: Start names one or more ACP SEIDs.
        let start = try signal("60 07 04 0c")
        XCTAssertEqual(start.acpSEIDs, [1, 3])
        XCTAssertEqual(
            Self.describe(start), "Start; transaction=6; message_type=command; signal=0x07; acp_seid=1; acp_seids=1 3")
        XCTAssertEqual(decode("60 07 04"), "Start; transaction=6; message_type=command; signal=0x07; acp_seid=1")
        // §8.13.3: the first SEID that failed, then the error code (0x13 SEP_IN_USE).
        XCTAssertEqual(
            decode("63 07 0c 13"),
            "Start; transaction=6; message_type=reject; signal=0x07; acp_seid=3; error_code=0x13; error_name=SEP In Use"
        )
        XCTAssertEqual(try signal("63 07 0c 13").acpSEIDs, [])
        XCTAssertEqual(decode("80 08 04"), "Close; transaction=8; message_type=command; signal=0x08; acp_seid=1")
        XCTAssertEqual(decode("82 08"), "Close; transaction=8; message_type=accept; signal=0x08")
        XCTAssertEqual(try signal("70 09 04 08 0c").acpSEIDs, [1, 2, 3])
        XCTAssertEqual(
            decode("73 09 08 14"),
            "Suspend; transaction=7; message_type=reject; signal=0x09; acp_seid=2; error_code=0x14; error_name=SEP Not In Use"
        )
        XCTAssertEqual(decode("90 0a 04"), "Abort; transaction=9; message_type=command; signal=0x0a; acp_seid=1")
        XCTAssertEqual(decode("92 0a"), "Abort; transaction=9; message_type=accept; signal=0x0a")
        // §8.16: Abort is never rejected; a reject with no parameters is shown as it came.
        XCTAssertEqual(decode("93 0a"), "Abort; transaction=9; message_type=reject; signal=0x0a")
    }

    // MARK: Security Control, Delay Report (§8.17, §8.19)

    func testSecurityControlAndDelayReport() throws {
        XCTAssertEqual(
            decode("a0 0b 04 01 02"),
            "Security Control; transaction=10; message_type=command; signal=0x0b; acp_seid=1; security_data=0102")
        XCTAssertEqual(
            decode("a2 0b 03"), "Security Control; transaction=10; message_type=accept; signal=0x0b; security_data=03")
        // §8.19.1: ACP SEID, then the delay in 1/10 ms, big-endian: 0x05dc = 150.0 ms.
        let delay = try signal("b0 0d 04 05 dc")
        XCTAssertEqual(
            Self.describe(delay),
            "Delay Report; transaction=11; message_type=command; signal=0x0d; acp_seid=1; delay_ms=150.0")
        XCTAssertEqual(decode("b2 0d"), "Delay Report; transaction=11; message_type=accept; signal=0x0d")
        XCTAssertEqual(
            decode("b3 0d 12"),
            "Delay Report; transaction=11; message_type=reject; signal=0x0d; error_code=0x12; error_name=Bad ACP SEID")
    }

    // MARK: General Reject, unknown signals (§8.18)

    func testGeneralRejectAndUnknownSignals() throws {
        // §8.18: message type 0b01, the signal identifier it rejects, no parameters.
        let reject = try signal("c1 1f")
        XCTAssertEqual(reject.messageType, .generalReject)
        XCTAssertEqual(Self.describe(reject), "Signal 0x1f; transaction=12; message_type=general_reject; signal=0x1f")
        XCTAssertEqual(decode("c1 0d"), "Delay Report; transaction=12; message_type=general_reject; signal=0x0d")
        // An unknown signal's parameters are not read; RFA bits of the signal octet are ignored.
        XCTAssertEqual(decode("c0 3f 01 02 03"), "Signal 0x3f; transaction=12; message_type=command; signal=0x3f")
        XCTAssertEqual(decode("c0 c1"), "Discover; transaction=12; message_type=command; signal=0x01")
        XCTAssertEqual(
            decode("c3 20 99"), "Signal 0x20; transaction=12; message_type=reject; signal=0x20")
        XCTAssertEqual(
            decode("c3 03 07 99"),
            "Set Configuration; transaction=12; message_type=reject; signal=0x03; error_code=0x99; error_name=Unknown (0x99); service_category=Media Codec"
        )
    }

    // MARK: Malformed messages

    func testShortMessagesAreMalformed() {
        XCTAssertEqual(decode(""), "malformed: AVDTP signalling message of 0 bytes: needs 2 bytes at offset 0, found 0")
        XCTAssertEqual(
            decode("40"), "malformed: AVDTP signalling message of 1 byte: needs 2 bytes at offset 0, found 1")
        // A Set Configuration command without its INT SEID.
        XCTAssertEqual(
            decode("40 03 04"),
            "malformed: Set Configuration command of 3 bytes: needs 1 byte at offset 3, found 0")
        // A capability whose LOSC runs past the end: 6 octets announced at offset 6, 3 there.
        XCTAssertEqual(
            decode("40 03 04 04 07 06 00 00 11"),
            "malformed: Set Configuration command of 9 bytes: needs 6 bytes at offset 6, found 3")
        // An SBC element shorter than its 4 octets (LOSC 4, from offset 6): the bitpools are
        // missing at offset 10.
        XCTAssertEqual(
            decode("40 03 04 04 07 04 00 00 11 15"),
            "malformed: Set Configuration command of 10 bytes: needs 1 byte at offset 10, found 0")
        XCTAssertEqual(
            decode("32 02 01 00 07 06 00 00 ff ff 02 35 04 01 02"),
            "malformed: Get Capabilities accept of 15 bytes: needs 2 bytes at offset 14, found 1")
        XCTAssertEqual(
            decode("02 01 04 08 0a"), "malformed: Discover accept of 5 bytes: needs 2 bytes at offset 4, found 1")
        XCTAssertEqual(decode("60 07"), "malformed: Start command of 2 bytes: needs 1 byte at offset 2, found 0")
        XCTAssertEqual(decode("63 07 0c"), "malformed: Start reject of 3 bytes: needs 1 byte at offset 3, found 0")
        XCTAssertEqual(
            decode("b0 0d 04 05"), "malformed: Delay Report command of 4 bytes: needs 2 bytes at offset 3, found 1")
        // Not a single packet: AVDTPAssembler joins fragments first.
        XCTAssertEqual(
            decode("44 03 02 04"), "malformed: Set Configuration command: packet type 1, expected 0 (single)")
        do throws(AVDTPMalformed) {
            _ = try AVDTPSignal(Self.bytes("40 03 04")[...])
            XCTFail("decoded")
        } catch {
            XCTAssertEqual(error.diagnostic.id, "avdtp.malformed")
            XCTAssertEqual(error.diagnostic.severity, .error)
            XCTAssertEqual(error.diagnostic.undecodedBytes, 3)
            XCTAssertEqual(error.diagnostic.field("offset"), .int(3))
            XCTAssertEqual(error.diagnostic.field("needed"), .int(1))
            XCTAssertEqual(error.diagnostic.field("available"), .int(0))
        }
    }

    /// Every vector above and from the real captures, every prefix and every single-byte change:
    /// decoded or malformed, never a trap.
    func testHostileInputNeverTraps() {
        for vector in Self.vectors {
            let bytes = Self.bytes(vector)
            for end in 0...bytes.count {
                let prefix = bytes[..<end]
                if let s = try? AVDTPSignal(prefix) { XCTAssertFalse(s.name.isEmpty) }
                var assembler = AVDTPAssembler()
                _ = assembler.push(prefix)
            }
            for i in bytes.indices {
                for value: UInt8 in [0x00, 0x01, 0x3f, 0x7f, 0x80, 0xff] {
                    var changed = bytes
                    changed[i] = value
                    _ = try? AVDTPSignal(changed[...])
                    var assembler = AVDTPAssembler()
                    _ = assembler.push(changed[...])
                    _ = assembler.push(changed.dropFirst())
                }
            }
        }
    }

    static let vectors = [
        "00 01", "02 01 04 08 0a 08 14 00", "03 01 31", "30 02 04", "32 02 01 00 07 06 00 00 ff ff 02 35 04 02 02 00",
        "22 02 01 00 07 06 00 01 3f 3f ff fe 04 02 02 00", "12 02 01 00 07 09 00 ff 4f 00 00 00 01 00 f2 04 02 02 00",
        "42 0c 01 00 02 00 03 03 01 02 02 08 00 09 01 ee", "40 03 04 04 01 00 07 06 00 00 11 15 02 35", "43 03 07 c2",
        "52 04 01 00 07 08 00 02 80 01 04 84 e2 00", "60 05 04 07 06 00 01 21 02 02 00",
        "70 03 04 04 07 0d 00 ff d7 00 00 00 24 00 12 00 00 00 00", "70 03 04 04 07 0a 00 ff 2d 01 00 00 aa 00 04 01",
        "70 03 04 04 07 0a 00 ff 34 12 00 00 78 56 aa bb", "60 07 04 0c", "63 07 0c 13", "a0 0b 04 01 02",
        "b0 0d 04 05 dc", "b3 0d 12", "c1 1f",
    ]
}
