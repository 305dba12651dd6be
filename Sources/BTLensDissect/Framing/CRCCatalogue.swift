/// The CRCs accessories use, by their names in the CRC catalogue (reveng's `crc-16/kermit`
/// spelling, lower case) and the aliases vendors' documents use. `check` is the catalogue's
/// check value, the CRC of the ASCII bytes "123456789": the tests hold every entry to it.
public enum CRCCatalogue {
    public struct Entry: Sendable {
        /// The catalogue's name first, then aliases.
        public let names: [String]
        public let crc: CRC
        public let check: UInt32
    }

    public static let entries: [Entry] = [
        entry(["crc-8", "crc-8/smbus", "crc8"], 8, 0x07, 0x00, false, false, 0x00, check: 0xf4),
        entry(["crc-8/maxim-dow", "crc-8/maxim", "dow-crc"], 8, 0x31, 0x00, true, true, 0x00, check: 0xa1),
        entry(["crc-8/autosar"], 8, 0x2f, 0xff, false, false, 0xff, check: 0xdf),
        entry(["crc-8/rohc"], 8, 0x07, 0xff, true, true, 0x00, check: 0xd0),
        entry(["crc-8/cdma2000"], 8, 0x9b, 0xff, false, false, 0x00, check: 0xda),
        entry(["crc-8/i-432-1", "crc-8/itu"], 8, 0x07, 0x00, false, false, 0x55, check: 0xa1),
        entry(
            ["crc-16/ibm-3740", "crc-16/ccitt-false", "crc-16/autosar", "crc16-ccitt"], 16, 0x1021, 0xffff, false,
            false, 0x0000, check: 0x29b1),
        entry(
            ["crc-16/kermit", "crc-16/ccitt", "crc-16/ccitt-true", "crc-16/v-41-lsb"], 16, 0x1021, 0x0000, true, true,
            0x0000, check: 0x2189),
        entry(
            ["crc-16/xmodem", "crc-16/zmodem", "crc-16/acorn", "crc-16/v-41-msb"], 16, 0x1021, 0x0000, false, false,
            0x0000, check: 0x31c3),
        entry(["crc-16/modbus"], 16, 0x8005, 0xffff, true, true, 0x0000, check: 0x4b37),
        entry(["crc-16/arc", "crc-16", "crc-16/lha"], 16, 0x8005, 0x0000, true, true, 0x0000, check: 0xbb3d),
        entry(
            ["crc-16/ibm-sdlc", "crc-16/x-25", "crc-16/iso-hdlc"], 16, 0x1021, 0xffff, true, true, 0xffff, check: 0x906e
        ),
        entry(["crc-16/mcrf4xx"], 16, 0x1021, 0xffff, true, true, 0x0000, check: 0x6f91),
        entry(["crc-16/usb"], 16, 0x8005, 0xffff, true, true, 0xffff, check: 0xb4c8),
        entry(
            ["crc-16/genibus", "crc-16/darc", "crc-16/epc"], 16, 0x1021, 0xffff, false, false, 0xffff, check: 0xd64e),
        entry(["crc-16/spi-fujitsu", "crc-16/aug-ccitt"], 16, 0x1021, 0x1d0f, false, false, 0x0000, check: 0xe5cc),
        entry(["crc-16/umts", "crc-16/buypass"], 16, 0x8005, 0x0000, false, false, 0x0000, check: 0xfee8),
        entry(["crc-16/maxim-dow", "crc-16/maxim"], 16, 0x8005, 0x0000, true, true, 0xffff, check: 0x44c2),
        entry(
            ["crc-32/iso-hdlc", "crc-32", "crc-32/adccp", "crc-32/v-42"], 32, 0x04c1_1db7, 0xffff_ffff, true, true,
            0xffff_ffff, check: 0xcbf4_3926),
        entry(
            ["crc-32/iscsi", "crc-32c", "crc-32/castagnoli"], 32, 0x1edc_6f41, 0xffff_ffff, true, true, 0xffff_ffff,
            check: 0xe306_9283),
        entry(
            ["crc-32/bzip2", "crc-32/aal5"], 32, 0x04c1_1db7, 0xffff_ffff, false, false, 0xffff_ffff,
            check: 0xfc89_1918),
        entry(["crc-32/mpeg-2"], 32, 0x04c1_1db7, 0xffff_ffff, false, false, 0, check: 0x0376_e6e7),
        entry(["crc-32/jamcrc"], 32, 0x04c1_1db7, 0xffff_ffff, true, true, 0, check: 0x340b_c6d9),
        entry(["crc-32/cksum", "crc-32/posix"], 32, 0x04c1_1db7, 0, false, false, 0xffff_ffff, check: 0x765e_7680),
    ]

    /// The CRC a name (any case) stands for.
    public static func named(_ name: String) -> CRC? {
        let key = name.lowercased()
        return entries.first { $0.names.contains(key) }?.crc
    }

    /// Every name, for error messages and suggestions.
    public static var names: [String] { entries.flatMap(\.names) }

    private static func entry(
        _ names: [String], _ width: Int, _ polynomial: UInt32, _ initial: UInt32, _ reflectIn: Bool,
        _ reflectOut: Bool, _ xorOut: UInt32, check: UInt32
    ) -> Entry {
        // The parameters are written above and fit their width: the catalogue's own values.
        let crc = CRC(
            width: width, polynomial: polynomial, initial: initial, reflectIn: reflectIn, reflectOut: reflectOut,
            xorOut: xorOut, name: names[0])!
        return Entry(names: names, crc: crc, check: check)
    }
}
