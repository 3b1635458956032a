import ShelfPresentation
import Testing

@Suite("Highlighting what a search matched")
struct TextHighlighterTests {
    func marked(_ terms: [String], in text: String) -> [String] {
        TextHighlighter.ranges(of: terms, in: text).map { String(text[$0]) }
    }

    @Test func wordPrefixesAreMarked() {
        #expect(marked(["mot"], in: "Moths and motors, not a remote") == ["Mot", "mot"])
        #expect(marked(["read", "dune"], in: "Read Dune again") == ["Read", "Dune"])
    }

    @Test func caseAndAccentsAreIgnoredAsTheSearchIgnoresThem() {
        #expect(marked(["ecole"], in: "École d'été") == ["École"])
        #expect(marked(["ÉTÉ"], in: "École d'été") == ["été"])
    }

    @Test func theLongestMatchingWordIsMarked() {
        #expect(marked(["re", "read"], in: "Reading") == ["Read"])
    }

    @Test func phrasesMarkTheirWords() {
        #expect(marked(["exact phrase"], in: "An exact phrase, exactly") == ["exact", "phrase", "exact"])
    }

    @Test func runsWithoutSpacesAndEmojiAreMarkedWhereverTheyOccur() {
        #expect(marked(["ドキュメント"], in: "日本語のドキュメント、ドキュメント") == ["ドキュメント", "ドキュメント"])
        #expect(marked(["🎂", "happy"], in: "Happy 🎂🎂 day") == ["Happy", "🎂", "🎂"])
        #expect(marked(["本", "本語"], in: "日本語") == ["本語"])
    }

    @Test func nothingToMarkForNoWords() {
        #expect(marked([], in: "anything").isEmpty)
        #expect(marked(["--", "  "], in: "-- anything").isEmpty)
        #expect(marked(["zzz"], in: "").isEmpty)
    }

    @Test func hostileTextIsMarkedByCharacters() {
        // Emoji with a variation selector, combining marks and a bidi control are whole
        // characters: a range never splits one.
        let text = "☕️ cafe\u{301} \u{202E}cafe"
        let ranges = TextHighlighter.ranges(of: ["cafe"], in: text)
        #expect(ranges.map { String(text[$0]) } == ["cafe\u{301}", "cafe"])
    }
}
