import Foundation
import Testing

@testable import ShelfTransfer

@Suite struct TimestampTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(Timestamp.string(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.string(1_795_876_634_123) == "2026-11-28T14:37:14.123Z")
        #expect(Timestamp.string(-1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.string(951_782_400_000) == "2000-02-29T00:00:00.000Z")
    }

    @Test func parsesZonesAndFractions() throws {
        #expect(try Timestamp.parse("2026-11-28T14:37:14.123Z") == 1_795_876_634_123)
        #expect(try Timestamp.parse("2026-11-28T15:37:14.123+01:00") == 1_795_876_634_123)
        #expect(try Timestamp.parse("2026-11-28 09:37:14.1234567-0500") == 1_795_876_634_123)
        #expect(try Timestamp.parse("2026-11-28T14:37Z") == 1_795_876_620_000)
        #expect(try Timestamp.parse("2026-11-28T14:37:14.5+00") == 1_795_876_634_500)
    }

    @Test func agreesWithFoundationOverCenturies() throws {
        var generator = SystemRandomNumberGenerator()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &generator)
            let text = Timestamp.string(milliseconds)
            #expect(try Timestamp.parse(text) == milliseconds)
            let date = try #require(formatter.date(from: text))
            #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == milliseconds, "\(text)")
        }
    }

    @Test(arguments: [
        "2026-11-28", "2026-11-28T14:37:14", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-11-28T24:00:00Z", "2026-11-28T14:37:14.Z", "yesterday", "2026-11-28T14:37:14Zjunk",
        "2026-11-28T14:37:14+25:00", "2025-02-29T00:00:00Z",
    ])
    func refusesBadTimes(_ text: String) {
        #expect(throws: FieldProblem.self) { try Timestamp.parse(text) }
    }
}
