import BTLensCrypto
import XCTest

/// Octets in the order the hex text writes them (spaces ignored); a malformed vector fails the test.
func octets(_ hex: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
    let digits = Array(hex.filter { $0 != " " })
    guard digits.count % 2 == 0 else {
        XCTFail("odd hex vector", file: file, line: line)
        return []
    }
    return stride(from: 0, to: digits.count, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
}

/// A value the spec prints most significant first, as it appears in a PDU (least significant first).
func onAir(_ hex: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
    octets(hex, file: file, line: line).reversed()
}

func key(_ hex: String, file: StaticString = #filePath, line: UInt = #line) throws -> Key128 {
    try XCTUnwrap(Key128(hex: hex), file: file, line: line)
}

func key256(_ hex: String, file: StaticString = #filePath, line: UInt = #line) throws -> Key256 {
    try XCTUnwrap(Key256(hex: hex), file: file, line: line)
}
