import ShelfPresentation
import ShelfTerminal
import Testing

@testable import ShelfBrowser

/// The hint lines of the dialogs other than the item editor (issue 26): at the widths their
/// dialogs get on 60, 80 and 120 columns, each fits, leaving out the least needed hints and
/// keeping the way out and the main action whole.
@MainActor
@Suite("Hint lines")
struct HintLineTests {
    /// The users view (96 wide), the saved views (80), the user form (64), inside their borders,
    /// on screens of 60, 80 and 120 columns.
    private func inner(_ dialog: Int, screen: Int) -> Int { min(dialog, screen) - 2 }

    @Test(arguments: [60, 80, 120])
    func eachDialogsHintFitsAndKeepsItsWayOutAndMainAction(screen: Int) {
        // Keys rebound to long names, as a config.toml may.
        let keys = KeyNames(rebound: [
            "users.edit": "Ctrl-E", "users.delete": "Ctrl-D / Del", "users.close": "Ctrl-Q",
            "views.delete": "Ctrl-D / Del", "views.close": "Ctrl-Q / Esc", "user-form.nextField": "Alt-N / Tab",
            "user-form.close": "Ctrl-Q / Esc",
        ])
        let cases: [(hints: [KeyHint], dialog: Int)] = [
            (UserListViewModel.hintList(keys: keys), 96),
            (SavedViewListViewModel.hintList(keys: keys), 80),
            (UserEditorContent.hintList(keys: keys), 64),
        ]
        for (hints, dialog) in cases {
            let line = HintLine(style: .plain)
            line.hints = hints
            let width = inner(dialog, screen: screen)
            let text = line.text(width: width)
            #expect(DisplayWidth.of(text) <= width, "\(screen): \(text)")
            for hint in hints where hint.rank == 1 { #expect(text.contains(hint.text), "\(screen): \(text)") }
        }
        // Wide enough, nothing is left out.
        let users = HintLine(style: .plain)
        users.hints = UserListViewModel.hintList(keys: keys)
        #expect(
            users.text(width: inner(96, screen: 120))
                == "a add · Ctrl-E edit · Ctrl-D / Del remove · Enter their items · Ctrl-Q back")
    }

    /// The saved views' delete question was cut at 80 and 120 columns before its keys when the
    /// view's name was long: the name is cut instead, and both answers show whole.
    @Test(arguments: [60, 80, 120])
    func aLongQuestionIsCutBeforeItsKeys(screen: Int) {
        let line = HintLine(style: .plain, separator: SavedViewListViewModel.deleteHintSeparator)
        let name = "The open items of everyone on the night shift, newest first, including archived ones"
        line.lead = "Delete “\(name)”?"
        line.hints = SavedViewListViewModel.deleteHints()
        let width = inner(80, screen: screen)
        let text = line.text(width: width)
        #expect(DisplayWidth.of(text) <= width, "\(text)")
        #expect(text.hasPrefix("Delete “The open"), "\(text)")
        #expect(
            text.hasSuffix("… y / Enter: delete    n / Esc: keep it"), "\(text)")
        // A short question is not cut.
        line.lead = "Delete “Dones”?"
        #expect(line.text(width: width) == "Delete “Dones”? y / Enter: delete    n / Esc: keep it")
    }

    /// Hostile round 11: the owner suggestions said "1–1 of 5" when 5,000 users matched; the
    /// border says how many match, the longest words that fit.
    @Test func theSuggestionsBorderSaysHowManyMatch() {
        #expect(
            SuggestionPopup.border(first: 0, rows: 1, listed: 5, total: 5000, width: 38)
                == "─ 1–1 of 5 listed, 5,000 match ")
        #expect(SuggestionPopup.border(first: 0, rows: 1, listed: 5, total: 5000, width: 21) == "─ 1–1 of 5,000 match ")
        #expect(SuggestionPopup.border(first: 2, rows: 3, listed: 5, total: 5000, width: 16) == "─ 3–5 of 5,000 ")
        // All listed: as before; all shown: nothing to say.
        #expect(SuggestionPopup.border(first: 0, rows: 1, listed: 5, total: 5, width: 38) == "─ 1–1 of 5 ")
        #expect(SuggestionPopup.border(first: 0, rows: 5, listed: 5, total: 0, width: 38) == nil)
        // Every match listed and shown, but more than the list holds: said too.
        #expect(
            SuggestionPopup.border(first: 0, rows: 5, listed: 5, total: 12, width: 38) == "─ 5 of 5 listed, 12 match ")
    }
}
