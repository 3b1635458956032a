internal import Foundation
public import ShelfReactive
public import ShelfStore

/// What the save-view prompt shows: the name as typed and where saving stands.
public struct SaveViewPromptContent: Hashable, Sendable {
    /// Where saving stands.
    public enum Phase: Hashable, Sendable {
        /// The name can be edited.
        case editing
        /// A view of that name exists: `confirmReplace()` saves over it (this version of it),
        /// `cancelReplace()` goes back to editing the name.
        case confirmingReplace(SavedView)
        /// A save is in progress.
        case saving
        /// Saved: the view as stored.
        case saved(SavedView)
        /// The name is refused, or saving failed; the message says why and what to do. The
        /// name is kept.
        case failed(String)
    }

    /// The name as typed.
    public let name: String
    /// Where saving stands.
    public let phase: Phase

    /// The line about where saving stands: "", "Saving…", "Saved “Mine”.", "A view named
    /// “Mine” exists. Replace it?", or the failure's message (see `isFailure`).
    public var phaseText: String {
        switch phase {
        case .editing: ""
        case .saving: "Saving…"
        case .saved(let view): "Saved “\(view.name)”."
        case .confirmingReplace(let existing): "A view named “\(existing.name)” exists. Replace it?"
        case .failed(let message): message
        }
    }

    /// True when `phaseText` says why saving failed.
    public var isFailure: Bool {
        if case .failed = phase { return true }
        return false
    }

    /// The keys that act now, named as `keys` names them.
    public func hint(keys: KeyNames = .defaults) -> String {
        if case .confirmingReplace = phase {
            return "\(keys("confirm.yes", "y / Enter")): replace    \(keys("confirm.no", "n / Esc")): change the name"
        }
        return "\(keys("prompt.accept", "Enter")) save · \(keys("prompt.cancel", "Esc")) cancel"
    }

    /// Content from its parts; for tests.
    public init(name: String, phase: Phase) {
        self.name = name
        self.phase = phase
    }
}

/// Saves the item list's current search and sort as a view under a name typed by a person;
/// asks first before saving over an existing view. Main actor.
@MainActor
public final class SaveViewPromptViewModel {
    /// The prompt's content.
    public let state: Property<SaveViewPromptContent>

    private let store: Store
    private let view: NewSavedView
    private let mutableState: MutableProperty<SaveViewPromptContent>
    private let tasks = IntentTracker()

    /// A prompt to save `query`'s text, sort and owner, with `name` typed in already (the
    /// open view's name, or empty).
    public init(store: Store, query: ItemQuery, name: String) {
        self.store = store
        view = NewSavedView(name: name, query: query)
        mutableState = MutableProperty(SaveViewPromptContent(name: name, phase: .editing))
        state = mutableState.property
    }

    /// The query text and sort that saving stores.
    public var queryText: String { view.queryText }

    /// The line naming what saving stores: "Query “moth sort:title”".
    public var queryLine: String { "Query “\(queryText.trimmingCharacters(in: .whitespaces))”" }

    /// Replaces the name as typed; back to editing after a failure.
    public func update(name: String) {
        switch mutableState.value.phase {
        case .editing, .failed: mutableState.value = SaveViewPromptContent(name: name, phase: .editing)
        default: break
        }
    }

    /// Saves under the typed name, or — when a view of that name exists — asks first
    /// (phase `.confirmingReplace`). A view the store would refuse (`NewSavedView.checked()`:
    /// the name, or a query the search does not understand) shows as `.failed` at once.
    @discardableResult
    public func save() -> Intent {
        let name = mutableState.value.name
        switch mutableState.value.phase {
        case .editing, .failed: break
        default: return .done
        }
        var candidate = view
        candidate.name = name
        do {
            // The check the store and the CLI make: a refused view is never sent.
            _ = try candidate.checked()
        } catch {
            mutableState.value = SaveViewPromptContent(name: name, phase: .failed(error.message))
            return .done
        }
        mutableState.value = SaveViewPromptContent(name: name, phase: .saving)
        let store = self.store
        return tasks.start(
            { [weak self] in
                if let existing = try await store.views.view(named: name) {
                    self?.mutableState.value = SaveViewPromptContent(name: name, phase: .confirmingReplace(existing))
                    return
                }
                try await self?.write(name: name, replacingVersion: nil)
            }, onFailure: { [weak self] error in self?.fail(name: name, error) })
    }

    /// Saves over the view the prompt asked about, if it is still the version shown; when
    /// someone changed it meanwhile, the prompt fails saying so.
    @discardableResult
    public func confirmReplace() -> Intent {
        guard case .confirmingReplace(let existing) = mutableState.value.phase else { return .done }
        let name = mutableState.value.name
        mutableState.value = SaveViewPromptContent(name: name, phase: .saving)
        return tasks.start(
            { [weak self] in try await self?.write(name: name, replacingVersion: existing.version) },
            onFailure: { [weak self] error in self?.fail(name: name, error) })
    }

    /// Goes back to editing the name, saving nothing.
    public func cancelReplace() {
        guard case .confirmingReplace = mutableState.value.phase else { return }
        mutableState.value = SaveViewPromptContent(name: mutableState.value.name, phase: .editing)
    }

    private func write(name: String, replacingVersion: Int64?) async throws {
        var new = view
        new.name = name
        let saved = try await store.views.save(new, replacingVersion: replacingVersion)
        mutableState.value = SaveViewPromptContent(name: saved.name, phase: .saved(saved))
    }

    private func fail(name: String, _ error: any Error) {
        mutableState.value = SaveViewPromptContent(name: name, phase: .failed("\(error)"))
    }
}
