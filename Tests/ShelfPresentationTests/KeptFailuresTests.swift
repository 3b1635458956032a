import ShelfPresentation
import ShelfStore
import Testing

/// The failures the browser keeps for `?` and says again after quitting.
@MainActor
@Suite("ItemActions: the failures kept")
struct KeptFailuresTests {
    /// Hostile round 11: twenty identical copy failures filled the kept twenty and the one
    /// distinct failure said before them was lost. Identical ones fold into one, counted; the
    /// distinct one stays; the order is the order each was last said.
    @Test func identicalFailuresFoldAndADistinctOneStays() async throws {
        let (store, _) = try await makeStore(items: 1)
        let actions = ItemActions(store: store)
        actions.keepFailure("Could not save: the file is read-only.")
        for _ in 0..<40 { actions.showFailure("Could not copy: TMPDIR is not writable.") }
        #expect(
            actions.failures == [
                "Could not save: the file is read-only.", "Could not copy: TMPDIR is not writable. (×40)",
            ])
        #expect(actions.droppedFailures == 0)
        actions.keepFailure("Could not save: the file is read-only.")
        #expect(
            actions.failures == [
                "Could not copy: TMPDIR is not writable. (×40)", "Could not save: the file is read-only. (×2)",
            ])
        // Only distinct failures push older ones out.
        for index in 0..<25 { actions.keepFailure("failure \(index)") }
        #expect(actions.failures.count == 20)
        #expect(actions.droppedFailures == 7)
        #expect(actions.failures.last == "failure 24")
    }
}
