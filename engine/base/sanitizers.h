#pragma once
// Whether this build runs under AddressSanitizer or ThreadSanitizer, for the
// few places that must behave otherwise there (g++ says so by a macro,
// clang by __has_feature).

namespace nimtb::engine {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool ADDRESS_SANITIZER = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool ADDRESS_SANITIZER = true;
#else
inline constexpr bool ADDRESS_SANITIZER = false;
#endif
#else
inline constexpr bool ADDRESS_SANITIZER = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool THREAD_SANITIZER = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool THREAD_SANITIZER = true;
#else
inline constexpr bool THREAD_SANITIZER = false;
#endif
#else
inline constexpr bool THREAD_SANITIZER = false;
#endif

}  // namespace nimtb::engine
