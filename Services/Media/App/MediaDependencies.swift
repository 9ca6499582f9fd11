import SNSPlatform

/// What the media handlers share.
struct MediaDependencies: Sendable {
    let configuration: MediaConfiguration
    let receiver: MultipartReceiver
    /// For bodies that are one file (the internal profile-image upload).
    let rawReceiver: RawFileReceiver
    let store: MediaStore
    let catalog: MediaCatalog
    let root: MediaRoot
}
