import Foundation
import ShelfPresentation
import ShelfReactive
import ShelfStore
import Testing

/// One check for a saved view's name and query, made by the store, the CLI and the browser's
/// save prompt alike (`NewSavedView.checked()`).
@MainActor
@Suite("Saved view checks")
struct SavedViewCheckTests {
    /// The CLI refuses `prio:>=2 "unclosed`; the prompt did not, and the store saved it.
    @Test func aQueryTheSearchDoesNotUnderstandIsRefusedByThePromptAndTheStore() async throws {
        let (store, _) = try await makeStore()
        let query = #"prio:>=2 "unclosed"#
        #expect(!ItemQueryText(query).problems.isEmpty, "the search reports a problem in it")
        let prompt = SaveViewPromptViewModel(store: store, query: ItemQuery(text: query), name: "Unclosed")
        prompt.save()
        guard case .failed(let message) = prompt.state.value.phase else {
            Issue.record("saved: \(prompt.state.value.phase)")
            return
        }
        #expect(message.hasPrefix("a saved view's query must be one the search understands: column "), "\(message)")
        await #expect(throws: StoreError.self) {
            try await store.views.save(NewSavedView(name: "Unclosed", queryText: query))
        }
        #expect(try await store.views.views().isEmpty)
    }

    /// 105 characters are refused, saying 105 (the browser's field cut them to 100 and saved).
    @Test func aLongNameIsRefusedWithItsLength() async throws {
        let (store, _) = try await makeStore()
        let prompt = SaveViewPromptViewModel(store: store, query: ItemQuery(), name: String(repeating: "a", count: 105))
        prompt.save()
        #expect(
            prompt.state.value.phase
                == .failed(
                    "a saved view's name must be at most 100 characters (this one has 105); shorten it"))
        prompt.update(name: String(repeating: "a", count: 100))
        await prompt.save().finished()
        let phase = prompt.state.value.phase
        #expect(phase.isSaved, "100 characters are saved: \(phase)")
    }

    /// Names count what a person sees: 60 accented letters typed with combining accents are
    /// 60 characters (they were refused as 120), and are kept in NFC.
    @Test func namesCountVisibleCharacters() async throws {
        let decomposed = String(repeating: "e\u{301}", count: 60)
        let name = try SavedView.checkedName(decomposed)
        #expect(name == String(repeating: "\u{E9}", count: 60))
        let longer = String(repeating: "e\u{301}", count: 101)
        #expect(throws: StoreError.self) { try SavedView.checkedName(longer) }
        do {
            _ = try SavedView.checkedName(longer)
        } catch {
            #expect(error.message.contains("(this one has 101)"), "\(error.message)")
        }
        // Characters of several code points each count as what shows: 60 hearts of two code
        // points each were refused as more than 100. Only a name past the database's bound
        // of 1,000 code points is refused for its code points, and the message says why.
        let hearts = String(repeating: "\u{2764}\u{FE0F}", count: 60)
        #expect(try SavedView.checkedName(hearts) == hearts)
        let heavy = String(repeating: "x" + String(repeating: "\u{301}", count: 10), count: 91)
        do {
            _ = try SavedView.checkedName(heavy)
            Issue.record("91 characters of 11 code points each pass the database's 1,000")
        } catch {
            #expect(error.message.contains("shows 91 characters built of 1001"), "\(error.message)")
        }
        let (store, _) = try await makeStore()
        let saved = try await store.views.save(NewSavedView(name: decomposed, queryText: ""))
        #expect(saved.name.count == 60 && saved.name.unicodeScalars.count == 60)
    }
}

extension SaveViewPromptContent.Phase {
    var isSaved: Bool { if case .saved = self { true } else { false } }
}
