/// A cyclic redundancy check by its parameters, in the model the CRC catalogue (Greg Cook's
/// "Catalogue of parametrised CRC algorithms", after Ross Williams) gives every CRC: width,
/// polynomial (normal form, top bit implied), initial register, whether input bytes and the result
/// are reflected, and what the result is XORed with. Computed a byte at a time through a table
/// built once, when the definition that names it loads. A class: a frame format holding one is
/// copied by a reference, not by its parameters and table.
public final class CRC: Sendable {
    public let width: Int
    public let polynomial: UInt32
    public let initial: UInt32
    public let reflectIn: Bool
    public let reflectOut: Bool
    public let xorOut: UInt32
    /// The catalogue's name, or nil for parameters written out.
    public let name: String?
    private let table: [UInt32]

    /// Widths a frame's checksum can have: whole bytes, up to four.
    public static let widths = [8, 16, 32]

    /// Nil when the width is not 8, 16 or 32, or a value does not fit in it.
    public init?(
        width: Int, polynomial: UInt32, initial: UInt32, reflectIn: Bool, reflectOut: Bool, xorOut: UInt32,
        name: String? = nil
    ) {
        guard Self.widths.contains(width) else { return nil }
        let mask = UInt32.max >> (32 - width)
        guard polynomial & ~mask == 0, initial & ~mask == 0, xorOut & ~mask == 0 else { return nil }
        self.width = width
        self.polynomial = polynomial
        self.initial = initial
        self.reflectIn = reflectIn
        self.reflectOut = reflectOut
        self.xorOut = xorOut
        self.name = name
        table = CRC.table(width: width, polynomial: polynomial, reflected: reflectIn)
    }

    private var mask: UInt32 { UInt32.max >> (32 - width) }

    public func compute<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var register = reflectIn ? Self.reflect(initial, width) : initial
        if reflectIn {
            // The register holds its bits low first: each byte enters at the bottom.
            for b in bytes { register = register >> 8 ^ table[Int((register ^ UInt32(b)) & 0xff)] }
        } else {
            let shift = UInt32(width - 8)
            for b in bytes {
                register = (register << 8 ^ table[Int((register >> shift ^ UInt32(b)) & 0xff)]) & mask
            }
        }
        // A reflected register already reads low bit first; reflect when input and output differ.
        if reflectIn != reflectOut { register = Self.reflect(register, width) }
        return register ^ xorOut
    }

    private static func table(width: Int, polynomial: UInt32, reflected: Bool) -> [UInt32] {
        let mask = UInt32.max >> (32 - width)
        let top = UInt32(1) << (width - 1)
        let reversed = reflect(polynomial, width)
        return (0..<256).map { (i: UInt32) in
            var c = reflected ? i : i << (width - 8)
            for _ in 0..<8 {
                if reflected {
                    c = c & 1 != 0 ? c >> 1 ^ reversed : c >> 1
                } else {
                    c = (c & top != 0 ? c << 1 ^ polynomial : c << 1) & mask
                }
            }
            return c
        }
    }

    static func reflect(_ value: UInt32, _ width: Int) -> UInt32 {
        value.bitSwapped >> (32 - width)
    }
}

extension CRC: Equatable {
    /// The same CRC, whatever it is called: the table follows from the parameters.
    public static func == (a: CRC, b: CRC) -> Bool {
        (a.width, a.polynomial, a.initial, a.xorOut) == (b.width, b.polynomial, b.initial, b.xorOut)
            && (a.reflectIn, a.reflectOut) == (b.reflectIn, b.reflectOut)
    }
}

extension UInt32 {
    fileprivate var bitSwapped: UInt32 {
        var v = self
        v = (v & 0x5555_5555) << 1 | (v >> 1) & 0x5555_5555
        v = (v & 0x3333_3333) << 2 | (v >> 2) & 0x3333_3333
        v = (v & 0x0f0f_0f0f) << 4 | (v >> 4) & 0x0f0f_0f0f
        return v.byteSwapped
    }
}
