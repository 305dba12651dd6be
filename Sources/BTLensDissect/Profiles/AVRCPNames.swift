import BTLensCore

/// The names of AVRCP's wire values (AVRCP 1.6.2; AV/C Digital Interface Command Set and Panel
/// Subunit specifications for the AV/C frame). An unknown value is named by its number.
enum AVRCPNames {
    /// AV/C ctype and response codes (AV/C 4.0 §5.3.1–5.3.2), as JSON values.
    static func ctype(_ v: UInt8) -> String {
        let names: [UInt8: String] = [
            0x0: "control", 0x1: "status", 0x2: "specific_inquiry", 0x3: "notify", 0x4: "general_inquiry",
            0x8: "not_implemented", 0x9: "accepted", 0xa: "rejected", 0xb: "in_transition", 0xc: "stable",
            0xd: "changed", 0xf: "interim",
        ]
        return names[v] ?? "reserved_\(Hex.value(v, width: 1))"
    }

    /// AV/C subunit types (AV/C 4.0 §5.3.3); AVRCP uses the panel and the unit.
    static func subunit(_ v: UInt8) -> String {
        let names: [UInt8: String] = [
            0x00: "monitor", 0x01: "audio", 0x02: "printer", 0x03: "disc", 0x04: "tape_recorder_player",
            0x05: "tuner", 0x06: "ca", 0x07: "camera", 0x09: "panel", 0x0a: "bulletin_board",
            0x0b: "camera_storage", 0x1c: "vendor_unique", 0x1e: "extended", 0x1f: "unit",
        ]
        return names[v] ?? Hex.value(v, width: 2)
    }

    /// Pass-through operation ids (AV/C Panel Subunit 1.23 §9.4; AVRCP 1.6.2 §4.6.1).
    static func operation(_ v: UInt8) -> String {
        if (0x20...0x29).contains(v) { return String(v - 0x20) }
        let names: [UInt8: String] = [
            0x00: "Select", 0x01: "Up", 0x02: "Down", 0x03: "Left", 0x04: "Right", 0x05: "Right Up",
            0x06: "Right Down", 0x07: "Left Up", 0x08: "Left Down", 0x09: "Root Menu", 0x0a: "Setup Menu",
            0x0b: "Contents Menu", 0x0c: "Favorite Menu", 0x0d: "Exit", 0x2a: "Dot", 0x2b: "Enter", 0x2c: "Clear",
            0x30: "Channel Up", 0x31: "Channel Down", 0x32: "Previous Channel", 0x33: "Sound Select",
            0x34: "Input Select", 0x35: "Display Information", 0x36: "Help", 0x37: "Page Up", 0x38: "Page Down",
            0x40: "Power", 0x41: "Volume Up", 0x42: "Volume Down", 0x43: "Mute", 0x44: "Play", 0x45: "Stop",
            0x46: "Pause", 0x47: "Record", 0x48: "Rewind", 0x49: "Fast Forward", 0x4a: "Eject", 0x4b: "Forward",
            0x4c: "Backward", 0x50: "Angle", 0x51: "Subpicture", 0x71: "F1", 0x72: "F2", 0x73: "F3", 0x74: "F4",
            0x75: "F5", 0x7e: "Vendor Unique",
        ]
        return names[v] ?? "Operation \(Hex.value(v, width: 2))"
    }

    /// AVRCP PDU ids (AVRCP 1.6.2 §6.4–6.15), as the specification writes them.
    static func pdu(_ v: UInt8) -> String {
        let names: [UInt8: String] = [
            0x10: "GetCapabilities", 0x11: "ListPlayerApplicationSettingAttributes",
            0x12: "ListPlayerApplicationSettingValues", 0x13: "GetCurrentPlayerApplicationSettingValue",
            0x14: "SetPlayerApplicationSettingValue", 0x15: "GetPlayerApplicationSettingAttributeText",
            0x16: "GetPlayerApplicationSettingValueText", 0x17: "InformDisplayableCharacterSet",
            0x18: "InformBatteryStatusOfCT", 0x20: "GetElementAttributes", 0x30: "GetPlayStatus",
            0x31: "RegisterNotification", 0x40: "RequestContinuingResponse", 0x41: "AbortContinuingResponse",
            0x50: "SetAbsoluteVolume", 0x60: "SetAddressedPlayer", 0x70: "SetBrowsedPlayer", 0x71: "GetFolderItems",
            0x72: "ChangePath", 0x73: "GetItemAttributes", 0x74: "PlayItem", 0x75: "GetTotalNumberOfItems",
            0x80: "Search", 0x90: "AddToNowPlaying", 0xa0: "General Reject",
        ]
        return names[v] ?? "PDU \(Hex.value(v, width: 2))"
    }

    /// Notification event ids (AVRCP 1.6.2 §6.7.2: EVENT_PLAYBACK_STATUS_CHANGED…), in CamelCase.
    static func event(_ v: UInt8) -> String {
        let names: [UInt8: String] = [
            0x01: "PlaybackStatusChanged", 0x02: "TrackChanged", 0x03: "TrackReachedEnd", 0x04: "TrackReachedStart",
            0x05: "PlaybackPosChanged", 0x06: "BattStatusChanged", 0x07: "SystemStatusChanged",
            0x08: "PlayerApplicationSettingChanged", 0x09: "NowPlayingContentChanged",
            0x0a: "AvailablePlayersChanged", 0x0b: "AddressedPlayerChanged", 0x0c: "UIDsChanged",
            0x0d: "VolumeChanged",
        ]
        return names[v] ?? "Event \(Hex.value(v, width: 2))"
    }

    /// Error and status codes (AVRCP 1.6.2 §6.15.3, Table 6.49).
    static func status(_ v: UInt8) -> String {
        let names: [UInt8: String] = [
            0x00: "Invalid Command", 0x01: "Invalid Parameter", 0x02: "Parameter Content Error",
            0x03: "Internal Error", 0x04: "Operation Completed Without Error", 0x05: "UID Changed",
            0x07: "Invalid Direction", 0x08: "Not a Directory", 0x09: "Does Not Exist", 0x0a: "Invalid Scope",
            0x0b: "Range Out of Bounds", 0x0c: "Folder Item is not playable", 0x0d: "Media in use",
            0x0e: "Now Playing List Full", 0x0f: "Search Not Supported", 0x10: "Search in Progress",
            0x11: "Invalid Player Id", 0x12: "Player Not Browsable", 0x13: "Player Not Addressed",
            0x14: "No valid Search Results", 0x15: "No available players", 0x16: "Addressed Player Changed",
        ]
        return names[v] ?? "Reserved (\(Hex.value(v, width: 2)))"
    }

    /// Play status (AVRCP 1.6.2 §6.7.1, GetPlayStatus), as JSON values.
    static func playStatus(_ v: UInt8) -> String {
        let names: [UInt8: String] = [
            0x00: "stopped", 0x01: "playing", 0x02: "paused", 0x03: "forward_seek", 0x04: "reverse_seek",
            0xff: "error",
        ]
        return names[v] ?? "reserved_\(Hex.value(v, width: 2))"
    }

    /// Battery status (AVRCP 1.6.2 §6.5.8, InformBatteryStatusOfCT).
    static func battery(_ v: UInt8) -> String {
        ["normal", "warning", "critical", "external", "full_charge"][safe: Int(v)]
            ?? "reserved_\(Hex.value(v, width: 2))"
    }

    /// System status (AVRCP 1.6.2 §6.7.2, EVENT_SYSTEM_STATUS_CHANGED).
    static func systemStatus(_ v: UInt8) -> String {
        ["power_on", "power_off", "unplugged"][safe: Int(v)] ?? "reserved_\(Hex.value(v, width: 2))"
    }

    /// Browsing scopes (AVRCP 1.6.2 §6.10.1).
    static func scope(_ v: UInt8) -> String {
        ["media_player_list", "virtual_filesystem", "search", "now_playing"][safe: Int(v)]
            ?? "reserved_\(Hex.value(v, width: 2))"
    }

    /// Player application settings (AVRCP 1.6.2 Appendix F): the attribute, and its value's name.
    static func setting(_ attribute: UInt8) -> String {
        ["Illegal", "Equalizer", "Repeat", "Shuffle", "Scan"][safe: Int(attribute)]
            ?? "Attribute \(Hex.value(attribute, width: 2))"
    }

    static func settingValue(_ attribute: UInt8, _ value: UInt8) -> String {
        let values: [[String]] = [
            [], ["Off", "On"], ["Off", "Single Track", "All Tracks", "Group"], ["Off", "All Tracks", "Group"],
            ["Off", "All Tracks", "Group"],
        ]
        return values[safe: Int(attribute)]?[safe: Int(value) - 1] ?? Hex.value(value, width: 2)
    }

    /// Media attribute ids (AVRCP 1.6.2 Appendix E), as field names.
    static func mediaAttribute(_ v: UInt32) -> String {
        [
            "illegal", "title", "artist", "album", "track_number", "total_tracks", "genre", "playing_time",
            "cover_art_handle",
        ][safe: Int(v)] ?? "attribute_\(v)"
    }

    /// The same, as the specification names them, for lists of requested attributes.
    static func mediaAttributeName(_ v: UInt32) -> String {
        [
            "Illegal", "Title", "Artist", "Album", "Track Number", "Total Tracks", "Genre", "Playing Time",
            "Cover Art Handle",
        ][safe: Int(v)] ?? "Attribute \(Hex.value(v, width: 8))"
    }
}

extension Array {
    fileprivate subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
