import BTLensCore
import XCTest

@testable import BTLensDissect

/// AVCTP (AVCTP 1.4 §6.1) and AVRCP (AVRCP 1.6.2; AV/C 4.0 and the AV/C Panel Subunit for the
/// frame). Vectors are L2CAP payloads: the AVCTP header (transaction label, packet type, C/R, IPID;
/// PID 110e), then the AV/C frame (ctype, subunit 48 = panel 0, opcode, operands) or browsing PDU.
final class AVRCPTests: XCTestCase {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
    }

    /// The message one AVCTP packet carries, decoded as "Name k=v …", with " !id: message" for a problem.
    static func decode(_ packet: [UInt8], browsing: Bool = false) -> String? {
        var assembler = AVCTPAssembler()
        let out = assembler.push(packet[...])
        if let d = out.diagnostic { return "!\(d.id): \(d.message)" }
        guard let m = out.message else { return nil }
        return render(m, browsing: browsing)
    }

    static func render(_ m: AVCTPMessage, browsing: Bool) -> String? {
        guard let d = browsing ? AVRCPDecoder.browsing(m) : AVRCPDecoder.control(m) else { return nil }
        let fields = d.message.fields.map { "\($0.0)=\(SMPTests.text($0.1))" }
        return ([d.message.name] + fields).joined(separator: " ")
            + (d.diagnostic.map { " !\($0.id): \($0.message)" } ?? "")
    }

    private func control(_ hex: String) -> String? { Self.decode(Self.bytes(hex)) }
    private func browsing(_ hex: String) -> String? { Self.decode(Self.bytes(hex), browsing: true) }

    // MARK: AV/C opcodes

    func testUnitInfo() {
        // AV/C 4.0 §11.1 (chsmartbulb #406, #408): status, unit 7 of type unit (ff), opcode 30,
        // operands ff × 5; stable response: 07, panel unit 0 (48), company id 001018.
        XCTAssertEqual(
            control("10 11 0e  01 ff 30 ff ff ff ff ff"),
            "Unit Info transaction=1 kind=command ctype=status subunit_type=unit subunit_id=7 opcode=0x30")
        XCTAssertEqual(
            control("12 11 0e  0c ff 30 07 48 00 10 18"),
            "Unit Info transaction=1 kind=response ctype=stable subunit_type=unit subunit_id=7 opcode=0x30 unit_type=panel unit=0 company_id=0x001018"
        )
    }

    func testSubunitInfo() {
        // AV/C 4.0 §11.2 (chsmartbulb #409, #410): page 0, extension code 7; page data: panel 0, unused.
        XCTAssertEqual(
            control("20 11 0e  01 ff 31 07 ff ff ff ff"),
            "Subunit Info transaction=2 kind=command ctype=status subunit_type=unit subunit_id=7 opcode=0x31 page=0")
        XCTAssertEqual(
            control("22 11 0e  0c ff 31 07 48 ff ff ff"),
            "Subunit Info transaction=2 kind=response ctype=stable subunit_type=unit subunit_id=7 opcode=0x31 page=0 subunits=panel 0"
        )
    }

    func testPassThrough() {
        // AV/C Panel Subunit §9.4, AVRCP 1.6.2 §4.6.1: control, opcode 7c, state flag and operation
        // id (44 play pressed; c4 play released), operation data length 0.
        XCTAssertEqual(
            control("30 11 0e  00 48 7c 44 00"),
            "Play transaction=3 kind=command ctype=control opcode=0x7c operation=0x44 state=pressed")
        XCTAssertEqual(
            control("32 11 0e  09 48 7c c4 00"),
            "Play transaction=3 kind=response ctype=accepted opcode=0x7c operation=0x44 state=released")
        let names = [
            (0x45, "Stop"), (0x46, "Pause"), (0x4b, "Forward"), (0x4c, "Backward"), (0x41, "Volume Up"),
            (0x42, "Volume Down"), (0x43, "Mute"), (0x48, "Rewind"), (0x49, "Fast Forward"), (0x40, "Power"),
            (0x25, "5"), (0x60, "Operation 0x60"),
        ]
        for (op, name) in names {
            XCTAssertEqual(
                control("00 11 0e 00 48 7c \(Hex.value(UInt8(op), width: 2).dropFirst(2)) 00")?.prefix(name.count + 1),
                "\(name) ")
        }
        // Vendor unique (7e): company id 001958 and a vendor operation id (AVRCP 1.6.2 §4.7.9, Next Group 0000).
        XCTAssertEqual(
            control("40 11 0e  00 48 7c 7e 05 00 19 58 00 00"),
            "Vendor Unique transaction=4 kind=command ctype=control opcode=0x7c operation=0x7e state=pressed company_id=0x001958 vendor_operation=0x0000"
        )
        // Operation data of another operation is shown as bytes.
        XCTAssertEqual(
            control("40 11 0e  00 48 7c 44 02 ab cd"),
            "Play transaction=4 kind=command ctype=control opcode=0x7c operation=0x44 state=pressed data=abcd")
    }

    func testUnknownOpcodeAndPID() {
        // An opcode AVRCP does not use is named by its number.
        XCTAssertEqual(
            control("50 11 0e  01 48 55 00"), "Opcode 0x55 transaction=5 kind=command ctype=status opcode=0x55")
        // AVCTP §6.1.1: a PID other than A/V remote control (110e) is named, not decoded.
        XCTAssertEqual(control("50 11 0f  01 48 30"), "PID 0x110f transaction=5 kind=command pid=0x110f")
        // IPID set in a response: the command's PID is not registered; no AVRCP bytes follow.
        XCTAssertEqual(control("53 11 0e"), "Invalid PID transaction=5 kind=response pid=0x110e")
    }

    // MARK: Vendor dependent PDUs (AVRCP 1.6.2 §6.3–6.14): 00 = opcode, 001958 = Bluetooth SIG,
    // PDU id, packet type, parameter length (u16 BE), parameters.

    func testGetCapabilities() {
        // §6.4.1 (a2dp_motog2013 #391, #392): capability 03 (events supported); 4 events.
        XCTAssertEqual(
            control("10 11 0e  01 48 00 00 19 58 10 00 00 01 03"),
            "GetCapabilities transaction=1 kind=command ctype=status opcode=0x00 pdu=0x10 packet_type=single capability=EventsSupported"
        )
        XCTAssertEqual(
            control("12 11 0e  0c 48 00 00 19 58 10 00 00 06 03 04 01 02 05 08"),
            "GetCapabilities transaction=1 kind=response ctype=stable opcode=0x00 pdu=0x10 packet_type=single capability=EventsSupported count=4 events=PlaybackStatusChanged, TrackChanged, PlaybackPosChanged, PlayerApplicationSettingChanged"
        )
        // Capability 02: company ids, 3 bytes each.
        XCTAssertEqual(
            control("12 11 0e  0c 48 00 00 19 58 10 00 00 05 02 01 00 19 58"),
            "GetCapabilities transaction=1 kind=response ctype=stable opcode=0x00 pdu=0x10 packet_type=single capability=CompanyID count=1 company_ids=0x001958"
        )
    }

    func testPlayerApplicationSettings() {
        let head = "transaction=1 kind=command ctype=status opcode=0x00"
        let rsp = "transaction=1 kind=response ctype=stable opcode=0x00"
        // §6.5.1 ListPlayerApplicationSettingAttributes: none; response: count, attribute ids.
        XCTAssertEqual(
            control("10 11 0e  01 48 00 00 19 58 11 00 00 00"),
            "ListPlayerApplicationSettingAttributes \(head) pdu=0x11 packet_type=single")
        XCTAssertEqual(
            control("12 11 0e  0c 48 00 00 19 58 11 00 00 03 02 02 03"),
            "ListPlayerApplicationSettingAttributes \(rsp) pdu=0x11 packet_type=single attributes=Repeat, Shuffle")
        // §6.5.2 ListPlayerApplicationSettingValues: attribute; response: count, values.
        XCTAssertEqual(
            control("10 11 0e  01 48 00 00 19 58 12 00 00 01 02"),
            "ListPlayerApplicationSettingValues \(head) pdu=0x12 packet_type=single attribute=Repeat")
        XCTAssertEqual(
            control("12 11 0e  0c 48 00 00 19 58 12 00 00 05 04 01 02 03 04"),
            "ListPlayerApplicationSettingValues \(rsp) pdu=0x12 packet_type=single values=0x01, 0x02, 0x03, 0x04")
        // §6.5.3 GetCurrentPlayerApplicationSettingValue: attribute ids; response: pairs.
        XCTAssertEqual(
            control("10 11 0e  01 48 00 00 19 58 13 00 00 03 02 02 03"),
            "GetCurrentPlayerApplicationSettingValue \(head) pdu=0x13 packet_type=single attributes=Repeat, Shuffle")
        XCTAssertEqual(
            control("12 11 0e  0c 48 00 00 19 58 13 00 00 05 02 02 03 03 02"),
            "GetCurrentPlayerApplicationSettingValue \(rsp) pdu=0x13 packet_type=single settings=Repeat: All Tracks, Shuffle: All Tracks"
        )
        // §6.5.4 SetPlayerApplicationSettingValue (control): pairs; accepted with no parameters.
        XCTAssertEqual(
            control("10 11 0e  00 48 00 00 19 58 14 00 00 05 02 01 02 85 07"),
            "SetPlayerApplicationSettingValue transaction=1 kind=command ctype=control opcode=0x00 pdu=0x14 packet_type=single settings=Equalizer: On, Attribute 0x85: 0x07"
        )
        XCTAssertEqual(
            control("12 11 0e  09 48 00 00 19 58 14 00 00 00"),
            "SetPlayerApplicationSettingValue transaction=1 kind=response ctype=accepted opcode=0x00 pdu=0x14 packet_type=single"
        )
    }

    func testGetElementAttributes() {
        // §6.6.1: identifier 0 (PLAYING), 2 attributes: Title (1), Artist (2).
        XCTAssertEqual(
            control("20 11 0e  01 48 00 00 19 58 20 00 00 11 00 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 02"),
            "GetElementAttributes transaction=2 kind=command ctype=status opcode=0x00 pdu=0x20 packet_type=single identifier=0x0000000000000000 attributes=Title, Artist"
        )
        XCTAssertEqual(
            control("20 11 0e  01 48 00 00 19 58 20 00 00 09 00 00 00 00 00 00 00 00 00")?.hasSuffix("attributes=all"),
            true)
        // Response: count, then id u32, character set 006a (UTF-8), length, value.
        let title = "00000001 006a 0005 48656c6c6f"  // "Hello"
        let artist = "00000002 006a 0003 426f62"  // "Bob"
        let time = "00000007 006a 0006 323430303030"  // "240000"
        XCTAssertEqual(
            control("22 11 0e  0c 48 00 00 19 58 20 00 00 27 03 \(title) \(artist) \(time)"),
            "GetElementAttributes transaction=2 kind=response ctype=stable opcode=0x00 pdu=0x20 packet_type=single count=3 title=Hello artist=Bob playing_time=240000"
        )
        // Another character set is said; an unknown attribute is named by its id.
        XCTAssertEqual(
            control("22 11 0e  0c 48 00 00 19 58 20 00 00 0a 01 0000000c 0003 0001 41"),
            "GetElementAttributes transaction=2 kind=response ctype=stable opcode=0x00 pdu=0x20 packet_type=single count=1 attribute_12=A attribute_12_charset=0x0003"
        )
    }

    func testPeerStringsAreBoundedAndDecodedSafely() {
        // Control characters are kept (the renderers escape them); invalid UTF-8 becomes U+FFFD.
        let hostile = "1b 5b 33 31 6d 0a 00 ff fe 22"
        let m = "22 11 0e  0c 48 00 00 19 58 20 00 00 13 01 00000001 006a 000a \(hostile)"
        XCTAssertEqual(
            control(m)?.components(separatedBy: " title=").last, "\u{1b}[31m\n\u{0}\u{FFFD}\u{FFFD}\"")
        // 300 bytes: 256 kept, 44 counted; a bound inside a character backs off to its start.
        let long = String(repeating: "61", count: 255) + "c3a9" + String(repeating: "62", count: 43)
        let out = control("22 11 0e  0c 48 00 00 19 58 20 00 01 35 01 00000001 006a 012c \(long)")
        XCTAssertEqual(
            out?.components(separatedBy: " title=").last, String(repeating: "a", count: 255) + " title_bytes_cut=45")
        let (text, cut) = AVRCPText.decode(Self.bytes(String(repeating: "e282ac", count: 100))[...])
        XCTAssertEqual(text, String(repeating: "€", count: 85))
        XCTAssertEqual(cut, 45)
    }

    func testGetPlayStatus() {
        // §6.7.1: no parameters; response: song length, position (ms), play status.
        XCTAssertEqual(
            control("30 11 0e  01 48 00 00 19 58 30 00 00 00"),
            "GetPlayStatus transaction=3 kind=command ctype=status opcode=0x00 pdu=0x30 packet_type=single")
        XCTAssertEqual(
            control("32 11 0e  0c 48 00 00 19 58 30 00 00 09 00 03 a9 80 00 00 13 88 01"),
            "GetPlayStatus transaction=3 kind=response ctype=stable opcode=0x00 pdu=0x30 packet_type=single length_ms=240000 position_ms=5000 play_status=playing"
        )
        // 0xffffffff: the target does not know.
        XCTAssertEqual(
            control("32 11 0e  0c 48 00 00 19 58 30 00 00 09 ff ff ff ff ff ff ff ff 03")?.hasSuffix(
                "length=not supported position=not supported play_status=forward_seek"), true)
    }

    func testRegisterNotification() {
        let head =
            "RegisterNotification transaction=4 kind=response ctype=interim opcode=0x00 pdu=0x31 packet_type=single"
        // §6.7.2 (a2dp_motog2013 #397): notify, event 05, playback interval 1 s.
        XCTAssertEqual(
            control("40 11 0e  03 48 00 00 19 58 31 00 00 05 05 00 00 00 01"),
            "RegisterNotification transaction=4 kind=command ctype=notify opcode=0x00 pdu=0x31 packet_type=single event=PlaybackPosChanged interval_s=1"
        )
        XCTAssertEqual(
            control("40 11 0e  03 48 00 00 19 58 31 00 00 05 01 00 00 00 00")?.hasSuffix("event=PlaybackStatusChanged"),
            true)
        // Interim and changed responses: the event and its value.
        let values = [
            ("02 01 01", "event=PlaybackStatusChanged play_status=playing"),
            ("09 02 ff ff ff ff ff ff ff ff", "event=TrackChanged identifier=0xffffffffffffffff"),
            ("05 05 00 00 75 30", "event=PlaybackPosChanged position_ms=30000"),
            ("05 05 ff ff ff ff", "event=PlaybackPosChanged position=not selected"),
            ("02 06 02", "event=BattStatusChanged battery=critical"),
            ("02 07 00", "event=SystemStatusChanged system_status=power_on"),
            ("04 08 01 03 02", "event=PlayerApplicationSettingChanged settings=Shuffle: All Tracks"),
            ("01 09", "event=NowPlayingContentChanged"),
            ("01 0a", "event=AvailablePlayersChanged"),
            ("05 0b 00 01 00 02", "event=AddressedPlayerChanged player_id=1 uid_counter=2"),
            ("03 0c 00 05", "event=UIDsChanged uid_counter=5"),
            ("02 0d 5a", "event=VolumeChanged volume=90 volume_percent=70"),
            ("01 03", "event=TrackReachedEnd"),
            ("01 20", "event=Event 0x20"),
        ]
        for (parameters, fields) in values {
            XCTAssertEqual(control("42 11 0e  0f 48 00 00 19 58 31 00 00 \(parameters)"), "\(head) \(fields)")
        }
        XCTAssertEqual(
            control("42 11 0e  0d 48 00 00 19 58 31 00 00 02 01 02"),
            "RegisterNotification transaction=4 kind=response ctype=changed opcode=0x00 pdu=0x31 packet_type=single event=PlaybackStatusChanged play_status=paused"
        )
    }

    func testContinuingResponseAndFragments() {
        // §6.8.1–6.8.2: the PDU whose response to continue or abort.
        XCTAssertEqual(
            control("50 11 0e  00 48 00 00 19 58 40 00 00 01 20"),
            "RequestContinuingResponse transaction=5 kind=command ctype=control opcode=0x00 pdu=0x40 packet_type=single continuing_pdu=0x20 continuing_pdu_name=GetElementAttributes"
        )
        XCTAssertEqual(
            control("50 11 0e  00 48 00 00 19 58 41 00 00 01 20")?.hasPrefix("AbortContinuingResponse "), true)
        XCTAssertEqual(
            control("52 11 0e  09 48 00 00 19 58 41 00 00 00"),
            "AbortContinuingResponse transaction=5 kind=response ctype=accepted opcode=0x00 pdu=0x41 packet_type=single"
        )
        // §6.3.1: a response in fragments (packet type start 01, continue 02, end 03), each shown
        // with its own parameter length and not decoded: a fragment cuts the parameters anywhere.
        XCTAssertEqual(
            control("52 11 0e  0c 48 00 00 19 58 20 01 00 04 03 00 00 00"),
            "GetElementAttributes transaction=5 kind=response ctype=stable opcode=0x00 pdu=0x20 packet_type=start parameter_length=4"
        )
        XCTAssertEqual(
            control("52 11 0e  0c 48 00 00 19 58 20 03 00 02 41 42")?.hasSuffix("packet_type=end parameter_length=2"),
            true)
    }

    func testVolumeAndPlayers() {
        // §6.13.2 SetAbsoluteVolume: 7 bits (0x7f = 100 %); the response says the volume set.
        XCTAssertEqual(
            control("60 11 0e  00 48 00 00 19 58 50 00 00 01 7f"),
            "SetAbsoluteVolume transaction=6 kind=command ctype=control opcode=0x00 pdu=0x50 packet_type=single volume=127 volume_percent=100"
        )
        XCTAssertEqual(
            control("62 11 0e  09 48 00 00 19 58 50 00 00 01 c0")?.hasSuffix("volume=64 volume_percent=50"), true)
        // §6.9.1 SetAddressedPlayer: player id; response: status.
        XCTAssertEqual(
            control("60 11 0e  00 48 00 00 19 58 60 00 00 02 00 01")?.hasSuffix(
                "pdu=0x60 packet_type=single player_id=1"),
            true)
        XCTAssertEqual(
            control("62 11 0e  09 48 00 00 19 58 60 00 00 01 04"),
            "SetAddressedPlayer transaction=6 kind=response ctype=accepted opcode=0x00 pdu=0x60 packet_type=single status=0x04 status_name=Operation Completed Without Error"
        )
        // §6.12.1 PlayItem, §6.12.2 AddToNowPlaying: scope, UID, UID counter; response: status.
        XCTAssertEqual(
            control("60 11 0e  00 48 00 00 19 58 74 00 00 0b 01 00 00 00 00 00 00 00 05 00 03"),
            "PlayItem transaction=6 kind=command ctype=control opcode=0x00 pdu=0x74 packet_type=single scope=virtual_filesystem uid=0x0000000000000005 uid_counter=3"
        )
        XCTAssertEqual(
            control("60 11 0e  00 48 00 00 19 58 90 00 00 0b 03 00 00 00 00 00 00 00 05 00 03")?.hasPrefix(
                "AddToNowPlaying transaction=6 kind=command ctype=control opcode=0x00 pdu=0x90 packet_type=single scope=now_playing"
            ), true)
    }

    func testRejectedAndOtherResponses() {
        // §6.15.1: a rejected response carries an error code (Table 6.49).
        XCTAssertEqual(
            control("62 11 0e  0a 48 00 00 19 58 90 00 00 01 0e"),
            "AddToNowPlaying transaction=6 kind=response ctype=rejected opcode=0x00 pdu=0x90 packet_type=single error_code=0x0e error_name=Now Playing List Full"
        )
        XCTAssertEqual(
            control("62 11 0e  0a 48 00 00 19 58 31 00 00 01 01")?.hasSuffix(
                "error_code=0x01 error_name=Invalid Parameter"),
            true)
        // Not implemented: the command echoed, not decoded again.
        XCTAssertEqual(
            control("62 11 0e  08 48 00 00 19 58 10 00 00 01 03"),
            "GetCapabilities transaction=6 kind=response ctype=not_implemented opcode=0x00 pdu=0x10 packet_type=single")
        // Another company's vendor-dependent frame; an unknown PDU of the Bluetooth SIG.
        XCTAssertEqual(
            control("60 11 0e  00 48 00 00 12 34 01 02"),
            "Vendor Dependent transaction=6 kind=command ctype=control opcode=0x00 company_id=0x001234")
        XCTAssertEqual(
            control("60 11 0e  01 48 00 00 19 58 99 00 00 00"),
            "PDU 0x99 transaction=6 kind=command ctype=status opcode=0x00 pdu=0x99 packet_type=single")
        // §6.5.7, §6.5.8: displayable character sets, the CT's battery.
        XCTAssertEqual(
            control("60 11 0e  00 48 00 00 19 58 17 00 00 05 02 00 6a 00 03")?.hasSuffix("charsets=0x006a, 0x0003"),
            true)
        XCTAssertEqual(
            control("60 11 0e  00 48 00 00 19 58 18 00 00 01 04")?.hasSuffix("battery=full_charge"), true)
    }

    func testMalformed() {
        // Parameter length 5, 2 bytes follow: at offset 13 of the L2CAP payload (3 AVCTP + 10 AV/C).
        XCTAssertEqual(
            control("12 11 0e  0c 48 00 00 19 58 10 00 00 05 03 04"),
            "GetCapabilities transaction=1 kind=response ctype=stable opcode=0x00 pdu=0x10 packet_type=single !avrcp.malformed: GetCapabilities: parameter length 5 at offset 13, but 2 bytes follow"
        )
        // Count 4, 2 events in the parameters: what was read is kept.
        XCTAssertEqual(
            control("12 11 0e  0c 48 00 00 19 58 10 00 00 04 03 04 01 02"),
            "GetCapabilities transaction=1 kind=response ctype=stable opcode=0x00 pdu=0x10 packet_type=single capability=EventsSupported count=4 !avrcp.malformed: GetCapabilities: parameters cut short, 1 bytes needed at offset 17, 0 found"
        )
        var assembler = AVCTPAssembler()
        let m = assembler.push(Self.bytes("12 11 0e  0c 48 00 00 19 58 10 00 00 05 03 04")[...]).message
        let d = m.flatMap { AVRCPDecoder.control($0) }?.diagnostic
        XCTAssertEqual(d?.fields.map(\.0), ["offset", "needed", "available"])
        XCTAssertEqual(d?.field("offset"), .int(13))
        // A pass-through's operation data length past its frame.
        XCTAssertEqual(
            control("00 11 0e  00 48 7c 7e 05 00 19"),
            "Vendor Unique transaction=0 kind=command ctype=control opcode=0x7c !avrcp.malformed: Vendor Unique: parameters cut short, 5 bytes needed at offset 8, 2 found"
        )
    }

    // MARK: Browsing (AVRCP 1.6.2 §6.1.2): PDU id, parameter length, parameters.

    func testBrowsingPlayers() {
        // §6.9.3 SetBrowsedPlayer: player id; response: status, UID counter, items, charset, depth, names.
        XCTAssertEqual(
            browsing("10 11 0e  70 00 02 00 01"), "SetBrowsedPlayer transaction=1 kind=command pdu=0x70 player_id=1")
        XCTAssertEqual(
            browsing("12 11 0e  70 00 17 04 00 07 00 00 00 10 00 6a 02 00 05 4d75736963 00 04 526f636b"),
            "SetBrowsedPlayer transaction=1 kind=response pdu=0x70 status=0x04 status_name=Operation Completed Without Error uid_counter=7 item_count=16 folder_depth=2 path=/Music/Rock"
        )
        // An error status carries nothing more.
        XCTAssertEqual(
            browsing("12 11 0e  70 00 01 11"),
            "SetBrowsedPlayer transaction=1 kind=response pdu=0x70 status=0x11 status_name=Invalid Player Id")
    }

    func testGetFolderItems() {
        // §6.10.4.2: scope 01 (virtual filesystem), start 0, end 9, attribute count 0 (all).
        XCTAssertEqual(
            browsing("20 11 0e  71 00 0a 01 00000000 00000009 00"),
            "GetFolderItems transaction=2 kind=command pdu=0x71 scope=virtual_filesystem start=0 end=9 attributes=all")
        XCTAssertEqual(
            browsing("20 11 0e  71 00 0e 00 00000000 00000009 01 00000001")?.hasSuffix("attributes=Title"), true)
        XCTAssertEqual(browsing("20 11 0e  71 00 0a 00 00000000 00000009 ff")?.hasSuffix("attributes=none"), true)
        // Response: status, UID counter, 3 items (§6.10.2): a media player (id 1, "Mu\"s"), a folder
        // ("Albums"), a media element (audio, "Song", no attributes).
        let player = "01 0020 0001 01 00000000 01 " + String(repeating: "00", count: 16) + " 006a 0004 4d752273"
        let folder = "02 0014 0000000000000002 02 00 006a 0006 416c62756d73"
        let song = "03 0012 0000000000000003 00 006a 0004 536f6e67 00"
        XCTAssertEqual(
            browsing("22 11 0e  71 00 54 04 0007 0003 \(player) \(folder) \(song)"),
            #"GetFolderItems transaction=2 kind=response pdu=0x71 status=0x04 status_name=Operation Completed Without Error uid_counter=7 item_count=3 items=player 1 "Mu\"s", folder "Albums", audio "Song""#
        )
        // Past 32 items, the rest are counted.
        let items = String(repeating: " 02 0010 0000000000000002 02 00 006a 0002 6869", count: 40)
        let out = browsing("22 11 0e  71 02 fd 04 0007 0028\(items)")
        XCTAssertEqual(out?.hasSuffix("folder \"hi\" items_not_listed=8"), true, out ?? "nil")
        XCTAssertEqual(out?.components(separatedBy: "folder").count, 33)
    }

    func testBrowsingPaths() {
        // §6.10.4.1 ChangePath: UID counter, direction (01 down), folder UID; response: status, items.
        XCTAssertEqual(
            browsing("30 11 0e  72 00 0b 00 07 01 00 00 00 00 00 00 00 02"),
            "ChangePath transaction=3 kind=command pdu=0x72 uid_counter=7 direction=down folder_uid=0x0000000000000002")
        XCTAssertEqual(
            browsing("32 11 0e  72 00 05 04 00 00 00 03")?.hasSuffix("item_count=3"), true)
        // §6.10.4.3 GetItemAttributes: scope, UID, UID counter, attribute ids; response: values.
        XCTAssertEqual(
            browsing("30 11 0e  73 00 10 03 0000000000000001 0007 01 00000001"),
            "GetItemAttributes transaction=3 kind=command pdu=0x73 scope=now_playing uid=0x0000000000000001 uid_counter=7 attributes=Title"
        )
        XCTAssertEqual(
            browsing("32 11 0e  73 00 0e 04 01 00000001 006a 0004 536f6e67"),
            "GetItemAttributes transaction=3 kind=response pdu=0x73 status=0x04 status_name=Operation Completed Without Error count=1 title=Song"
        )
        // §6.10.4.4 GetTotalNumberOfItems: scope; response: status, UID counter, items.
        XCTAssertEqual(
            browsing("30 11 0e  75 00 01 00"),
            "GetTotalNumberOfItems transaction=3 kind=command pdu=0x75 scope=media_player_list")
        XCTAssertEqual(
            browsing("32 11 0e  75 00 07 04 0007 00000020")?.hasSuffix("uid_counter=7 item_count=32"), true)
        // §6.11 Search: charset, length, string; response: status, UID counter, items.
        XCTAssertEqual(
            browsing("30 11 0e  80 00 07 006a 0003 616263"), "Search transaction=3 kind=command pdu=0x80 search=abc")
        XCTAssertEqual(browsing("32 11 0e  80 00 07 04 0007 00000002")?.hasSuffix("item_count=2"), true)
        // §6.15.2 General Reject: a reason.
        XCTAssertEqual(
            browsing("32 11 0e  a0 00 01 00"),
            "General Reject transaction=3 kind=response pdu=0xa0 error_code=0x00 error_name=Invalid Command")
        XCTAssertEqual(
            browsing("32 11 0e  a0 00 02 00"),
            "General Reject transaction=3 kind=response pdu=0xa0 !avrcp.malformed: General Reject: parameter length 2 at offset 6, but 1 bytes follow"
        )
    }

    // MARK: AVCTP fragmentation (AVCTP 1.4 §6.1.2)

    /// A GetElementAttributes response (transaction 2) as one AV/C frame.
    static let frame = bytes(
        "0c 48 00 00 19 58 20 00 00 27 03 00000001 006a 0005 48656c6c6f 00000002 006a 0003 426f62 00000007 006a 0006 323430303030"
    )

    func testFragmentsJoin() {
        let single = Self.decode([0x22, 0x11, 0x0e] + Self.frame)
        XCTAssertEqual(single?.hasSuffix("title=Hello artist=Bob playing_time=240000"), true)
        // Split in three at every pair of offsets: start (26, 3 packets, PID), continue (2a), end (2e).
        for a in 0...Self.frame.count {
            for b in a...Self.frame.count {
                var assembler = AVCTPAssembler()
                let start = assembler.push(([0x26, 3, 0x11, 0x0e] + Self.frame[..<a])[...])
                let middle = assembler.push(([0x2a] + Self.frame[a..<b])[...])
                XCTAssertNil(start.message ?? middle.message)
                XCTAssertNil(start.diagnostic ?? middle.diagnostic)
                XCTAssertEqual(assembler.heldBytes, b)
                let end = assembler.push(([0x2e] + Self.frame[b...])[...])
                XCTAssertNil(end.diagnostic)
                XCTAssertEqual(end.message?.packets, 3)
                XCTAssertEqual(end.message?.headerLength, 0)
                XCTAssertEqual(end.message.flatMap { Self.render($0, browsing: false) }, single)
                XCTAssertEqual(assembler.heldBytes, 0)
            }
        }
    }

    func testUnexpectedFragments() {
        var assembler = AVCTPAssembler()
        // A continue with no start: dropped, said.
        var out = assembler.push([0x2a, 1, 2][...])
        XCTAssertNil(out.message)
        XCTAssertEqual(out.diagnostic?.id, "avctp.fragment.unexpected")
        XCTAssertEqual(out.diagnostic?.field("packet_type"), .string("continue"))
        // A start while one is in progress: the earlier is dropped; the new one goes on.
        _ = assembler.push(([0x26, 2, 0x11, 0x0e] + Self.frame[..<10])[...])
        out = assembler.push(([0x36, 2, 0x11, 0x0e] + Self.frame[..<10])[...])
        XCTAssertEqual(
            out.diagnostic?.message,
            "AVCTP start packet while a message of transaction 2 was in progress (1 of 2 packets); its 10 bytes are dropped"
        )
        // An end of another transaction is dropped; the one in progress stays.
        out = assembler.push(([0x2e] + Self.frame[10...])[...])
        XCTAssertEqual(out.diagnostic?.id, "avctp.fragment.unexpected")
        XCTAssertEqual(assembler.heldBytes, 10)
        // A single packet ends it too, and is decoded.
        out = assembler.push(([0x32, 0x11, 0x0e] + Self.frame)[...])
        XCTAssertEqual(out.diagnostic?.id, "avctp.fragment.unexpected")
        XCTAssertEqual(out.message?.transaction, 3)
        XCTAssertEqual(assembler.heldBytes, 0)
        // Fewer packets than the start said: the message, and the problem.
        _ = assembler.push(([0x26, 3, 0x11, 0x0e] + Self.frame[..<10])[...])
        out = assembler.push(([0x2e] + Self.frame[10...])[...])
        XCTAssertEqual(out.message?.payload.count, Self.frame.count)
        XCTAssertEqual(
            out.diagnostic?.message, "AVCTP message of transaction 2 ended after 2 packets; its start said 3")
        XCTAssertEqual(out.diagnostic?.field("expected"), .int(3))
    }

    func testFragmentLimit() {
        var assembler = AVCTPAssembler()
        let piece = [UInt8](repeating: 0, count: 60000)
        XCTAssertNil(assembler.push(([0x26, 3, 0x11, 0x0e] + piece)[...]).diagnostic)
        let out = assembler.push(([0x2a] + piece)[...])
        XCTAssertEqual(out.diagnostic?.id, "avctp.fragment.limit")
        XCTAssertEqual(out.diagnostic?.field("have"), .int(120000))
        XCTAssertEqual(assembler.heldBytes, 0)
        // The end that follows has no start.
        XCTAssertEqual(assembler.push([0x2e][...]).diagnostic?.id, "avctp.fragment.unexpected")
    }

    func testShortAVCTPHeaders() {
        for (packet, need) in [([UInt8](), 1), ([0x20, 0x11], 3), ([0x24, 2, 0x11], 4)] {
            var assembler = AVCTPAssembler()
            let out = assembler.push(packet[...])
            XCTAssertNil(out.message)
            XCTAssertEqual(out.diagnostic?.id, "avctp.malformed")
            XCTAssertEqual(out.diagnostic?.field("need"), .int(need))
        }
    }

    // MARK: Hostile input

    /// Every vector above whose length says where it ends (not another company's or PID's bytes).
    static let vectors: [(String, Bool)] = [
        ("12 11 0e  0c ff 30 07 48 00 10 18", false), ("20 11 0e  01 ff 31 07 ff ff ff ff", false),
        ("22 11 0e  0c ff 31 07 48 ff ff ff", false), ("40 11 0e  00 48 7c 7e 05 00 19 58 00 00", false),
        ("40 11 0e  00 48 7c 44 02 ab cd", false), ("12 11 0e  0c 48 00 00 19 58 10 00 00 06 03 04 01 02 05 08", false),
        ("12 11 0e  0c 48 00 00 19 58 13 00 00 05 02 02 03 03 02", false),
        ("22 11 0e  0c 48 00 00 19 58 20 00 00 0a 01 0000000c 0003 0001 41", false),
        ("32 11 0e  0c 48 00 00 19 58 30 00 00 09 00 03 a9 80 00 00 13 88 01", false),
        ("42 11 0e  0f 48 00 00 19 58 31 00 00 05 0b 00 01 00 02", false),
        ("62 11 0e  0a 48 00 00 19 58 90 00 00 01 0e", false),
        ("60 11 0e  00 48 00 00 19 58 74 00 00 0b 01 00 00 00 00 00 00 00 05 00 03", false),
        ("12 11 0e  70 00 17 04 00 07 00 00 00 10 00 6a 02 00 05 4d75736963 00 04 526f636b", true),
        ("20 11 0e  71 00 0e 00 00000000 00000009 01 00000001", true),
        ("22 11 0e  71 00 1c 04 0007 0001 02 0014 0000000000000002 02 00 006a 0006 416c62756d73", true),
        ("30 11 0e  73 00 10 03 0000000000000001 0007 01 00000001", true),
        ("32 11 0e  73 00 0e 04 01 00000001 006a 0004 536f6e67", true), ("30 11 0e  80 00 07 006a 0003 616263", true),
        ("32 11 0e  a0 00 01 00", true),
    ]

    func testEveryPrefixIsNilOrSaid() {
        for (hex, browsing) in Self.vectors {
            let whole = Self.bytes(hex)
            let full = Self.decode(whole, browsing: browsing)
            XCTAssertNotNil(full, hex)
            XCTAssertEqual(full?.contains("!"), false, full ?? hex)
            for n in 0..<whole.count {
                guard let out = Self.decode(Array(whole[..<n]), browsing: browsing) else { continue }
                XCTAssertTrue(out.contains(" !avrcp.malformed: ") || out.hasPrefix("!avctp.malformed"), "\(n): \(out)")
            }
        }
        let frame = [0x22, 0x11, 0x0e] + Self.frame
        for n in 0..<frame.count {
            XCTAssertNotEqual(Self.decode(Array(frame[..<n]))?.contains("!"), false, "\(n)")
        }
    }

    func testRandomBytesNeverTrap() {
        var seed: UInt64 = 0x9e37_79b9_7f4a_7c15
        func next() -> UInt8 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: seed >> 33)
        }
        for i in 0..<20000 {
            // An AVCTP single header, an AV/C or browsing prefix that reaches the PDU decoders, then noise.
            let prefix: [UInt8] =
                i % 2 == 0 ? [0x00, 0x11, 0x0e, next() & 0x0f, 0x48, 0x00, 0x00, 0x19, 0x58] : [0x02, 0x11, 0x0e]
            let noise = (0..<Int(next() % 48)).map { _ in next() }
            _ = Self.decode(prefix + noise, browsing: i % 2 == 1)
            _ = Self.decode(noise, browsing: i % 3 == 0)
        }
    }

    func testDiagnosticsAreDeclared() {
        XCTAssertEqual(
            AVRCPDiagnostics.all.map(\.id),
            ["avctp.malformed", "avctp.fragment.unexpected", "avctp.fragment.limit", "avrcp.malformed"])
    }
}
