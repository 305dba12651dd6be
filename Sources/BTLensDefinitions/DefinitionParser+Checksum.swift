import BTLensCore
import BTLensDissect

/// A frame variant's `checksum`: `none`, an algorithm's name, or a mapping with the algorithm (a
/// name, or a CRC's parameters), the bytes it covers and its byte order.
extension DefinitionParser.Parser {
    /// `header`: the frame's parts, which a `covers` range names.
    func checksum(_ v: YAMLValue, header: [FrameFormat.HeaderField] = [], magic: Int = 0) throws(DefinitionError)
        -> FrameFormat.Checksum?
    {
        if v.isScalar { return try checksumAlgorithm(v).map { FrameFormat.Checksum($0) } }
        let m = try v.fields("framing checksum", allowed: ["algorithm", "covers", "endian", "flag"])
        guard let alg = try checksumAlgorithm(m.required("algorithm", "framing checksum")) else { return nil }
        var c = FrameFormat.Checksum(alg)
        if let f = m["flag"] {
            guard header.contains(where: { $0.roles.contains(.flags) }) else {
                throw f.error("framing checksum flag: the header has no flags field to carry it")
            }
            c.flag = UInt8(try integer(f, "framing checksum flag", in: 1...255))
        }
        if let cov = m["covers"], !cov.isScalar {
            (c.covers, c.span) = try checksumRange(cov, header: header, magic: magic)
        } else if let cov = m["covers"] {
            let text = try cov.string("framing checksum covers")
            guard let value = FrameFormat.ChecksumCoverage(rawValue: text) else {
                throw cov.error(
                    "framing checksum covers: '\(text)'; expected \(FrameFormat.ChecksumCoverage.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            c.covers = value
        }
        if let e = m["endian"] { c.bigEndian = try checksumEndian(e) }
        return c
    }

    func checksumEndian(_ e: YAMLValue) throws(DefinitionError) -> Bool {
        switch try e.string("framing checksum endian") {
        case "be": return true
        case "le": return false
        case let other: throw e.error("framing checksum endian: expected le or be, found '\(other)'")
        }
    }

    func checksumAlgorithm(_ a: YAMLValue) throws(DefinitionError) -> ChecksumAlgorithm? {
        if !a.isScalar { return .crc(try crc(a)) }
        let text = try a.string("framing checksum")
        if text == "none" { return nil }
        if let alg = ChecksumAlgorithm.named(text) { return alg }
        let simple = ChecksumAlgorithm.simple.map(\.name).joined(separator: ", ")
        var message = "framing checksum: unknown algorithm '\(text)'; expected \(simple), a CRC's name"
        message += " from the catalogue (crc-16/kermit, crc-32, … in Dissectors/README.md), its parameters or none"
        let near = CRCCatalogue.names.min {
            EditDistance.levenshtein($0, text.lowercased()) < EditDistance.levenshtein($1, text.lowercased())
        }
        if let near, EditDistance.levenshtein(near, text.lowercased()) <= 3 { message += "; did you mean \(near)?" }
        throw a.error(message)
    }

    /// A CRC by its catalogue parameters: `{width: 16, poly: 0x1021, init: 0xffff, reflect-in: false,
    /// reflect-out: false, xor-out: 0}`. `init` and `xor-out` default to 0, `reflect-in` to false,
    /// `reflect-out` to `reflect-in` (as in almost every CRC of the catalogue).
    private func crc(_ v: YAMLValue) throws(DefinitionError) -> CRC {
        let what = "framing checksum algorithm"
        let m = try v.fields(what, allowed: ["width", "poly", "init", "reflect-in", "reflect-out", "xor-out"])
        let widthValue = try m.required("width", what)
        let width = Int(try integer(widthValue, "\(what) width", in: 8...32))
        guard CRC.widths.contains(width) else {
            throw widthValue.error("\(what) width: \(width); expected 8, 16 or 32")
        }
        let top = Int64(1) << width - 1
        func value(_ key: String, _ v: YAMLValue?) throws(DefinitionError) -> UInt32 {
            guard let v else { return 0 }
            return UInt32(try integer(v, "\(what) \(key) (\(width) bits)", in: 0...top))
        }
        let polyValue = try m.required("poly", what)
        let poly = try value("poly", polyValue)
        // The polynomial's lowest term is 1 for every CRC worth the name: an even one loses a bit.
        guard poly & 1 == 1 else {
            throw polyValue.error("\(what) poly: \(Hex.value(poly, width: width / 4)); expected an odd polynomial")
        }
        let reflectIn = try m["reflect-in"]?.bool("\(what) reflect-in") ?? false
        let reflectOut = try m["reflect-out"]?.bool("\(what) reflect-out") ?? reflectIn
        let crc = CRC(
            width: width, polynomial: poly, initial: try value("init", m["init"]), reflectIn: reflectIn,
            reflectOut: reflectOut, xorOut: try value("xor-out", m["xor-out"]))
        guard let crc else { throw v.error("\(what): the values do not fit in \(width) bits") }
        return CRCCatalogue.entries.first { $0.crc == crc }?.crc ?? crc
    }
}
