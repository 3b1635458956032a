import Foundation
import ShelfStore
import Testing

/// The query language, parsed as plain values: no store.
@Suite("Query language parser")
struct ItemQueryTextTests {
    @Test func wordsArePrefixesAndHighlighted() {
        let parsed = ItemQueryText("moth  Lamp")
        #expect(parsed.included == [.words(["moth"]), .words(["Lamp"])])
        #expect(parsed.highlightTerms == ["moth", "Lamp"])
        #expect(parsed.problems.isEmpty)
        #expect(!parsed.isEmpty)
    }

    @Test func punctuationSplitsWordsAsTheTokenizerDoes() {
        let parsed = ItemQueryText("dash-sep C++ a@b.org")
        #expect(parsed.included == [.words(["dash", "sep"]), .words(["C"]), .words(["a", "b", "org"])])
        #expect(parsed.ownerPrefixes.isEmpty)
    }

    @Test func phrasesExclusionsAndHighlights() {
        let parsed = ItemQueryText(#"-moth "exact  phrase" -"bad news" keep -x-y"#)
        #expect(parsed.included == [.phrase(["exact", "phrase"]), .words(["keep"])])
        #expect(parsed.excluded == [.words(["moth"]), .phrase(["bad", "news"]), .words(["x", "y"])])
        #expect(parsed.highlightTerms == ["exact  phrase", "keep"])
        #expect(parsed.problems.isEmpty)
    }

    @Test func ownersByAtOrKeyAnyOfThem() {
        let parsed = ItemQueryText(#"@ada owner:bob@ex owner:"Ann Lee" OWNER:ada"#)
        #expect(parsed.ownerPrefixes == ["ada", "bob@ex", "Ann Lee"])
        #expect(parsed.highlightTerms.isEmpty)
        #expect(parsed.included.isEmpty)
        #expect(parsed.problems.isEmpty)
    }

    @Test func statusAndIs() {
        #expect(ItemQueryText("status:open").statuses == [.open])
        #expect(ItemQueryText("is:DONE").statuses == [.done])
        #expect(ItemQueryText("is:done status:open").statuses == [.done, .open])
        let wrong = ItemQueryText("is:later moth")
        #expect(wrong.statuses.isEmpty)
        #expect(wrong.included == [.words(["moth"])])
        #expect(wrong.problems.map(\.message) == ["is: wants open or done"])
    }

    @Test(arguments: [
        ("prio:2", 2..<3), ("prio:=2", 2..<3), ("prio:>=2", 2..<4), ("prio:>2", 3..<4), ("prio:<2", 0..<2),
        ("prio:<=1", 0..<2), ("priority:0", 0..<1), ("prio:>=1 prio:<3", 1..<3), ("prio:>3", 4..<4),
        ("prio:<0", 0..<0), ("prio:3 prio:1", 2..<2),
    ])
    func priorities(text: String, bounds: Range<Int>) {
        let parsed = ItemQueryText(text)
        #expect(parsed.priorities == bounds, "\(text)")
        #expect(parsed.problems.isEmpty, "\(text)")
    }

    @Test func aBadPriorityIsAProblemAtItsColumn() throws {
        let text = "moth prio:9 lamp"
        let parsed = ItemQueryText(text)
        let problem = try #require(parsed.problems.first)
        #expect(parsed.problems.count == 1)
        #expect(problem.column == 6)
        #expect(problem.length == 6)
        #expect(String(text[problem.range]) == "prio:9")
        #expect(problem.message == "prio: wants 0…3 or a comparison like >=2")
        #expect(problem.description == "column 6: prio: wants 0…3 or a comparison like >=2")
        #expect(parsed.priorities == nil)
        #expect(parsed.included == [.words(["moth"]), .words(["lamp"])])
    }

    @Test(arguments: ["prio:", "prio:>=", "prio:x", "prio:-1", "prio:1.5", "prio:٣", "prio:+2", "prio:>>2"])
    func malformedPriorities(text: String) {
        let parsed = ItemQueryText(text)
        #expect(parsed.priorities == nil, "\(text)")
        #expect(parsed.problems.count == 1, "\(text)")
        #expect(parsed.isEmpty, "\(text)")
    }

    static let now: Int64 = 1_800_000_000_000
    static let day: Int64 = 86_400_000

    @Test func agesCompareAges() throws {
        func range(_ text: String) throws -> MillisecondRange {
            let parsed = ItemQueryText(text)
            #expect(parsed.problems.isEmpty, "\(text)")
            return try #require(parsed.created.first).range(now: Self.now)
        }
        // Younger than 7 days: created after now - 7d.
        #expect(try range("created:<7d") == MillisecondRange(lower: Self.now - 7 * Self.day + 1, upper: nil))
        #expect(try range("created:<=7d") == MillisecondRange(lower: Self.now - 7 * Self.day, upper: nil))
        #expect(try range("created:>7d") == MillisecondRange(lower: nil, upper: Self.now - 7 * Self.day))
        #expect(try range("created:>=7d") == MillisecondRange(lower: nil, upper: Self.now - 7 * Self.day + 1))
        #expect(
            try range("created:7d")
                == MillisecondRange(lower: Self.now - 8 * Self.day + 1, upper: Self.now - 7 * Self.day + 1))
        #expect(try range("created:<2h") == MillisecondRange(lower: Self.now - 7_200_000 + 1, upper: nil))
        #expect(try range("created:<1W") == MillisecondRange(lower: Self.now - 7 * Self.day + 1, upper: nil))
    }

    @Test func daysReadAsOnGitHub() throws {
        let start = Int64(20_454) * Self.day  // 2026-01-01
        func range(_ text: String) throws -> MillisecondRange {
            let parsed = ItemQueryText(text)
            #expect(parsed.problems.isEmpty, "\(text)")
            return try #require(parsed.updated.first).range(now: Self.now)
        }
        #expect(try range("updated:<2026-01-01") == MillisecondRange(lower: nil, upper: start))
        #expect(try range("updated:<=2026-01-01") == MillisecondRange(lower: nil, upper: start + Self.day))
        #expect(try range("updated:>2026-01-01") == MillisecondRange(lower: start + Self.day, upper: nil))
        #expect(try range("updated:>=2026-01-01") == MillisecondRange(lower: start, upper: nil))
        #expect(try range("updated:2026-01-01") == MillisecondRange(lower: start, upper: start + Self.day))
        #expect(
            try range("updated:>=2026-01-01T12:00:00Z")
                == MillisecondRange(lower: start + Self.day / 2, upper: nil))
        #expect(
            try range("updated:<2026-01-01T12:00:00+02:00")
                == MillisecondRange(lower: nil, upper: start + Self.day / 2 - 7_200_000))
        #expect(try range("updated:=2026-01-01T00:00:00") == MillisecondRange(lower: start, upper: start + 1000))
    }

    @Test(arguments: [
        "created:", "created:<", "created:7", "created:7m", "created:7y", "created:d", "created:-7d",
        "created:2026-02-30", "created:2026-13-01", "created:26-01-01", "created:2026-1-1",
        "created:yesterday", "updated:>=2026-01-01T25:00:00Z", "created:7d7d", "created:٧d",
    ])
    func malformedTimes(text: String) {
        let parsed = ItemQueryText(text)
        #expect(parsed.created.isEmpty && parsed.updated.isEmpty, "\(text)")
        #expect(parsed.problems.count == 1, "\(text)")
        #expect(parsed.problems.first?.message.contains("wants an age like <7d") == true, "\(text)")
    }

    /// An age of the right form but too many units says it is out of range and what the range
    /// is; it used to say "wants an age like <7d", which it was.
    @Test(arguments: ["created:<99999999d", "created:9999999d", "updated:>100001h", "created:>=1000000w"])
    func anAgeOutOfRangeSaysSo(text: String) throws {
        let parsed = ItemQueryText(text)
        #expect(parsed.created.isEmpty && parsed.updated.isEmpty, "\(text)")
        let problem = try #require(parsed.problems.first)
        #expect(parsed.problems.count == 1)
        #expect(problem.message.contains("is out of range"), "\(problem.message)")
        #expect(problem.message.contains("at most 100000 hours, days or weeks"), "\(problem.message)")
        #expect(!problem.message.contains("wants an age like"), "\(problem.message)")
        #expect(ItemQueryText("created:<100000d").problems.isEmpty, "the largest age is allowed")
    }

    @Test func leapDays() {
        #expect(ItemQueryText("created:2024-02-29").problems.isEmpty)
        #expect(ItemQueryText("created:2023-02-29").problems.count == 1)
        #expect(ItemQueryText("created:2000-02-29").problems.isEmpty)
        #expect(ItemQueryText("created:1900-02-29").problems.count == 1)
    }

    @Test func unknownKeysAreAProblemAndSearchedAsWords() throws {
        let parsed = ItemQueryText("colour:red moth")
        #expect(parsed.included == [.words(["colour", "red"]), .words(["moth"])])
        let problem = try #require(parsed.problems.first)
        #expect(problem.column == 1)
        #expect(problem.length == 10)
        #expect(problem.message.hasPrefix("unknown filter colour:, searched as words"))
        #expect(ItemQueryText("-colour:red").excluded == [.words(["colour", "red"])])
    }

    @Test(arguments: [
        ("Re: meeting", [TextTerm.words(["Re"]), .words(["meeting"])]),
        ("http://x.org/a", [.words(["http", "x", "org", "a"])]),
        ("12:30", [.words(["12", "30"])]),
        (":moth", [.words(["moth"])]),
        ("C++:x", [.words(["C", "x"])]),
        ("naïve:", [.words(["naïve"])]),
    ])
    func colonsThatAreNotFilters(text: String, terms: [TextTerm]) {
        let parsed = ItemQueryText(text)
        #expect(parsed.included == terms, "\(text)")
        #expect(parsed.problems.isEmpty, "\(text)")
    }

    @Test func anUnclosedPhraseRunsToTheEndAndIsAProblem() throws {
        let text = #"moth "exact phr"#
        let parsed = ItemQueryText(text)
        #expect(parsed.included == [.words(["moth"]), .phrase(["exact", "phr"])])
        let problem = try #require(parsed.problems.first)
        #expect(problem.column == 6)
        #expect(problem.range.upperBound == text.endIndex)
        #expect(problem.message.contains("closing \""))
    }

    @Test(arguments: [
        ("@", "@ wants the start"), ("owner:", "owner: wants the start"), (#"owner:"ad"#, "wants a closing"),
        ("-status:done", "only words and phrases"), ("-@ada", "only words and phrases"), ("is:", "is: wants"),
        ("status:", "status: wants"), ("updated:", "updated: wants"),
    ])
    func malformedFilters(text: String, message: String) throws {
        let parsed = ItemQueryText(text)
        let problem = try #require(parsed.problems.first, "\(text)")
        #expect(parsed.problems.count == 1)
        #expect(problem.message.contains(message), "\(text): \(problem.message)")
        #expect(problem.column == 1)
        #expect(parsed.isEmpty, "\(text)")
    }

    @Test(arguments: [
        "", " ", "-", "- -", "--", "\"", "\"\"", "\" \"", "()", "*", "-\"\"", "\u{0}", "\t\n", "::", "-:",
    ])
    func textWithoutTermsDoesNotFilter(text: String) {
        let parsed = ItemQueryText(text)
        #expect(parsed.included.isEmpty && parsed.excluded.isEmpty, "\(text.debugDescription)")
        #expect(parsed.ownerPrefixes.isEmpty && parsed.statuses.isEmpty && parsed.priorities == nil)
    }

    @Test func hostileTextIsTextOrAProblemNeverAnything() {
        for text in [
            "moth\u{0}trap", "🦋 moth", "e\u{301}te\u{301}", "שלום עולם", "مرحبا prio:2", "'; DROP TABLE items; --",
            "NEAR(moth trap, 2)", "moth* OR lamp", "\u{1b}[31m", "%_\\", "@%_", "owner:a%b_c\\",
        ] {
            let parsed = ItemQueryText(text)
            #expect(parsed.text == text)
            for problem in parsed.problems {
                #expect(problem.range.lowerBound >= text.startIndex && problem.range.upperBound <= text.endIndex)
            }
        }
        #expect(ItemQueryText("moth\u{0}trap").included == [.words(["moth", "trap"])])
        #expect(ItemQueryText("مرحبا prio:2").priorities == 2..<3)
        #expect(ItemQueryText("@%_").ownerPrefixes == ["%_"])
    }

    @Test func columnsCountCharactersAsATerminalShowsThem() throws {
        // "é" as e + combining acute is one character; the emoji is one too.
        let text = "e\u{301}🦋 prio:7"
        let problem = try #require(ItemQueryText(text).problems.first)
        #expect(problem.column == 4)
        let hebrew = try #require(ItemQueryText("שלום prio:x").problems.first)
        #expect(hebrew.column == 6)
    }

    @Test func veryLongTextParsesWithoutTrouble() {
        let text = String(repeating: "moth -lamp \"a b\" prio:9 @x ", count: 2000)
        let parsed = ItemQueryText(text)
        // 2,000 times prio:9, and once the words past 64 (8,000 in all).
        #expect(parsed.problems.count == 2001)
        #expect(parsed.problems.filter { $0.message.hasPrefix("the query has 8000 words") }.count == 1)
        #expect(parsed.problems.map(\.range.lowerBound) == parsed.problems.map(\.range.lowerBound).sorted())
        #expect(parsed.ownerPrefixes == ["x"])
        #expect(parsed.highlightTerms == ["moth", "a b"])
        #expect(parsed.included.count + parsed.excluded.count == 48)
    }

    @Test func emojiAndRunsWithoutSpacesAreSubstrings() {
        #expect(ItemQueryText("🎂").included == [.substring("🎂")])
        #expect(ItemQueryText("ドキュメント").included == [.substring("ドキュメント")])
        // A run holds one kind: script without spaces, or symbols; words go apart.
        let mixed = ItemQueryText("happy🎂🎉 Swift言語の本 ❤️")
        #expect(
            mixed.included == [
                .words(["happy"]), .substring("🎂🎉"), .words(["Swift"]), .substring("言語の本"), .substring("❤️"),
            ])
        #expect(ItemQueryText("日本🎂").included == [.substring("日本"), .substring("🎂")])
        #expect(ItemQueryText(#""日本語の ドキュメント" -🎂"#).included == [.substring("日本語の"), .substring("ドキュメント")])
        #expect(ItemQueryText("-🎂 -ไทย").excluded == [.substring("🎂"), .substring("ไทย")])
        #expect(ItemQueryText("🎂 ドキ").highlightTerms == ["🎂", "ドキ"])
        // Symbols of ASCII and punctuation stay separators, as before.
        #expect(ItemQueryText("C++ a$b ・ 。").included == [.words(["C"]), .words(["a", "b"])])
    }

    @Test func aQueryOfThousandsOfWordsSearchesTheFirst64WithAProblem() throws {
        let phrase = "\"" + Array(repeating: "the", count: 10_000).joined(separator: " ") + "\""
        let parsed = ItemQueryText("moth " + phrase)
        let problem = try #require(parsed.problems.first)
        #expect(parsed.problems.count == 1)
        #expect(
            problem.message
                == "the query has 10001 words; at most 64 can be searched: shorten it")
        #expect(problem.column == 6)
        #expect(parsed.included == [.words(["moth"]), .phrase(Array(repeating: "the", count: 63))])
        #expect(ItemQueryText(Array(repeating: "w", count: 64).joined(separator: " ")).problems.isEmpty)
        let long = String(repeating: "a", count: 300)
        let cut = ItemQueryText(long)
        #expect(cut.included == [.words([String(repeating: "a", count: 100)])])
        #expect(cut.problems.map(\.message) == ["a word of 300 characters; only its first 100 are searched"])
    }

    @Test func parsingIsPure() {
        let text = #"moth "a b" -c @d is:open prio:>1 created:<7d updated:2026-01-01 prio:9"#
        #expect(ItemQueryText(text) == ItemQueryText(text))
    }
}
