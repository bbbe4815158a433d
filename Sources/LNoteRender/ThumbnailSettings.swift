import Foundation
import LNoteFormat

/// What a thumbnail is made with: the part of every thumbnail's fingerprint that is not the
/// page's own inputs. Changing any of it re-renders. The defaults and ranges are written here
/// once; the CLI's options and the library's defaults both take them from here.
public struct ThumbnailRecipe: Sendable, Equatable {
    /// Thumbnail width in pixels (the height follows the page).
    public var width: Int
    /// JPEG quality.
    public var quality: Int
    /// The renderer's version: a new renderer redraws every thumbnail once.
    public var rendererVersion: String

    public static let defaultWidth = 320
    public static let widthRange = 16...4096
    public static let defaultQuality = 80
    public static let qualityRange = 1...100

    public init(width: Int = defaultWidth, quality: Int = defaultQuality, rendererVersion: String) {
        self.width = width
        self.quality = quality
        self.rendererVersion = rendererVersion
    }

    /// The settings that change the picture, as they are hashed and stored in a fingerprint
    /// (`w320 q80`).
    public var settingsText: String { "w\(width) q\(quality)" }
}

/// How a regeneration run goes: none of it is in a fingerprint, since it decides whether and
/// how fast pages are drawn, not what they look like.
public struct ThumbnailPolicy: Sendable, Equatable {
    /// Re-render every page even when its thumbnail is up to date.
    public var force: Bool
    /// Read and hash every input, even where the stat index vouches for it (`StatIndex`).
    public var verify: Bool
    /// Worker threads; output is identical whatever the count.
    public var jobs: Int
    /// A page estimated to need more raster work than this is refused (`RenderOptions.maxWork`).
    public var maxWork: Double

    public init(force: Bool = false, verify: Bool = false, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                maxWork: Double = RenderOptions.defaultMaxWork) {
        self.force = force
        self.verify = verify
        self.jobs = max(1, jobs)
        self.maxWork = maxWork
    }
}

/// A caller's choice of both, without the renderer version (which the regenerator is given):
/// the width and quality of the recipe, and the run's policy.
public struct ThumbnailSettings: Sendable, Equatable {
    public var width: Int
    public var quality: Int
    public var policy: ThumbnailPolicy

    public init(width: Int = ThumbnailRecipe.defaultWidth, quality: Int = ThumbnailRecipe.defaultQuality, force: Bool = false,
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount, maxWork: Double = RenderOptions.defaultMaxWork,
                verify: Bool = false) {
        self.width = width
        self.quality = quality
        self.policy = ThumbnailPolicy(force: force, verify: verify, jobs: jobs, maxWork: maxWork)
    }

    /// The recipe these settings give with `rendererVersion`.
    public func recipe(rendererVersion: String) -> ThumbnailRecipe {
        ThumbnailRecipe(width: width, quality: quality, rendererVersion: rendererVersion)
    }
}
