import BTLensCore
import BTLensFilter
import BTLensReport
import XCTest

@testable import BTLensDissect
@testable import btlens

/// A profile is named once, by its descriptor in `Analyzer.profiles`: the text and JSONL
/// renderers, the event types filters name, L2CAP's PSM names and `--decode-as` read it there,
/// with no list of profiles of their own (docs/architecture.md, "A new layer").
final class ProfileRegistryTests: XCTestCase {
    func testEveryOutputReadsTheRegisteredDescriptor() throws {
        for d in Analyzer.profiles {
            let e = Event(
                record: 7, timestamp: Timestamp(microseconds: 0), direction: .received, connection: 0x40, isTop: true,
                body: .profile(ProfileMessage(Profile(d), "Ping", [("count", .int(3))])))
            XCTAssertEqual(EventType(e).name, d.type)
            XCTAssert(EventType.allCases.contains(EventType(e)), d.type)
            var text = TextRenderer()
            let line = try XCTUnwrap(text.render(e), d.type)
            XCTAssert(line.contains(" \(d.layer) ") && line.contains("Ping count=3"), line)
            let json = String(decoding: try XCTUnwrap(JSONLRenderer().render(e)), as: UTF8.self)
            XCTAssert(json.hasPrefix(#"{"type":"\#(d.type)","record":7,"#), json)
            XCTAssert(json.contains(#""name":"Ping","count":3}"#), json)
            XCTAssert(try DisplayFilter(d.type).matches(e), d.type)
            XCTAssert(try DisplayFilter("\(d.type) && connection == 0x40").matches(e), d.type)
            XCTAssert(d.parameters.isSubset(of: ParameterNames.all), d.type)
            for (psm, name) in d.psms { XCTAssertEqual(PSM.name(psm), name) }
            for (name, binding) in d.decodeAs { XCTAssertEqual(DecodeAs(argument: "0x0041=\(name)"), binding(0x41)) }
        }
    }

    /// The profiles' types follow the other kinds, in the registration order; filters know each.
    func testProfilesTypesAreNamedInTheirOrder() throws {
        let names = EventType.allCases.map(\.name)
        XCTAssertEqual(Array(names.suffix(Analyzer.profiles.count)), Analyzer.profiles.map(\.type))
        XCTAssertEqual(Set(names).count, names.count, "a type named twice")
        XCTAssertEqual(Profile.avdtpMedia.descriptor.type, "avdtp.media")
        XCTAssertFalse(try DisplayFilter("avdtp").matches(event(.hfp)))
        XCTAssert(try DisplayFilter("avdtp").matches(event(.avdtpMedia)), "a family holds the types under it")
    }

    private func event(_ p: Profile) -> Event {
        Event(
            record: 1, timestamp: Timestamp(microseconds: 0), direction: nil, connection: nil, isTop: true,
            body: .profile(ProfileMessage(p, "Ping")))
    }
}
