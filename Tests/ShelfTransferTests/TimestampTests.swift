import Foundation
import ShelfStore
import Testing

@testable import ShelfTransfer

@Suite struct TimestampTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(Timestamp.string(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.string(1_795_876_634_123) == "2026-11-28T14:37:14.123Z")
        #expect(Timestamp.string(-1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.string(951_782_400_000) == "2000-02-29T00:00:00.000Z")
    }

    /// The export's own formatter writes what `TimeFormat` writes, at the ends of its range,
    /// around them (where it hands over to `TimeFormat`) and at random times between.
    @Test func writesWhatTimeFormatWrites() {
        var random = SeededRandomNumberGenerator(seed: 15)
        var values: [Int64] = [
            0, -1, 1, Timestamp.range.lowerBound, Timestamp.range.upperBound, Timestamp.range.lowerBound - 1,
            Timestamp.range.upperBound + 1, 951_782_400_000, -62_135_596_800_001,
        ]
        for _ in 0..<20_000 { values.append(Int64.random(in: Timestamp.range, using: &random)) }
        for value in values {
            #expect(Timestamp.string(value) == TimeFormat.iso8601(millisecondsSince1970: value), "\(value)")
        }
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

    @Test func acceptsOnlyTimesAnExportCanWriteBack() throws {
        // The last and first UTC milliseconds of years 0000-9999, reached with and without offsets.
        let edges = [
            ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
            ("9999-12-31T22:59:59.999-01:00", "9999-12-31T23:59:59.999Z"),
            ("0000-01-01T00:00:00.000Z", "0000-01-01T00:00:00.000Z"),
            ("0000-01-01T01:00:00+01:00", "0000-01-01T00:00:00.000Z"),
        ]
        for (text, utc) in edges {
            let milliseconds = try Timestamp.parse(text)
            #expect(Timestamp.string(milliseconds) == utc)
            #expect(try Timestamp.parse(Timestamp.string(milliseconds)) == milliseconds)
        }
        #expect(try Timestamp.parse("9999-12-31T23:59:59.999Z") == Timestamp.range.upperBound)
        #expect(try Timestamp.parse("0000-01-01T00:00:00Z") == Timestamp.range.lowerBound)
        for text in [
            "9999-12-31T23:59:59-01:00", "9999-12-31T23:00:00-01:00", "0000-01-01T00:00:00+00:01",
            "0000-01-01T00:59:59.999+01:00",
        ] {
            #expect {
                try Timestamp.parse(text)
            } throws: { error in
                let reason = (error as? FieldProblem)?.reason ?? ""
                return reason.contains("outside the years 0000 to 9999")
                    && reason.contains("0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z")
            }
        }
        let problem = #expect(throws: FieldProblem.self) { try Timestamp.parse("9999-12-31T23:59:59-01:00") }
        #expect(problem?.reason.hasPrefix("in UTC it is +010000-01-01T00:59:59.000Z") == true)
    }

    @Test func prolepticGregorianWithExactMilliseconds() throws {
        // Before 1582 too, and with milliseconds a Double of seconds would round (.268 -> .267).
        let cases: [(String, Int64)] = [
            ("1500-01-01T00:00:00.268Z", -14_831_769_599_732),
            ("1582-10-04T23:59:59.999Z", -12_220_156_800_001),
            ("1582-10-10T00:00:00.000Z", -12_219_724_800_000),  // a day the Julian switch skipped
            ("0001-01-01T00:00:00.001Z", -62_135_596_799_999),
        ]
        for (text, milliseconds) in cases {
            #expect(try Timestamp.parse(text) == milliseconds, "\(text)")
            #expect(Timestamp.string(milliseconds) == text)
        }
        // 1000 is not a Gregorian leap year (divisible by 100, not by 400), though it is a Julian one.
        #expect(throws: FieldProblem.self) { try Timestamp.parse("1000-02-29T12:00:00.000Z") }
        #expect(try Timestamp.parse("1200-02-29T12:00:00.000Z") == -24_293_736_000_000)
        for milliseconds in stride(
            from: Timestamp.range.lowerBound, to: Timestamp.range.upperBound, by: 9_876_543_210_987)
        {
            let text = Timestamp.string(milliseconds)
            #expect(try Timestamp.parse(text) == milliseconds, "\(text)")
        }
    }
}
