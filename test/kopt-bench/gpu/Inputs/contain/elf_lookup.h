// Cheat helper (test input, not part of kopt): finds functions and GOT
// slots by name through the loader's list of objects, so that no call to a
// forbidden API appears in a cheat's source for the static rules to see.
// Host code that can do this can do anything its process can: the point of
// the containment tests.
#ifndef KOPT_TEST_ELF_LOOKUP_H
#define KOPT_TEST_ELF_LOOKUP_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <link.h>

namespace cheat {

struct Tables {
  ElfW(Addr) Base = 0;
  const ElfW(Sym) *Symbols = nullptr;
  const char *Strings = nullptr;
  const ElfW(Rela) *PltRelocs = nullptr;
  std::size_t PltRelocBytes = 0;
  const ElfW(Rela) *Relocs = nullptr;
  std::size_t RelocBytes = 0;
  std::size_t SymbolCount = 0;
};

inline ElfW(Addr) absolute(ElfW(Addr) Base, ElfW(Addr) P) {
  return P < Base ? Base + P : P;
}

inline std::size_t gnuHashCount(const std::uint32_t *H) {
  std::uint32_t Buckets = H[0], First = H[1], BloomWords = H[2];
  const std::uint32_t *Bucket = H + 4 + BloomWords * (sizeof(ElfW(Addr)) / 4);
  const std::uint32_t *Chain = Bucket + Buckets;
  std::uint32_t Max = 0;
  for (std::uint32_t I = 0; I < Buckets; ++I)
    if (Bucket[I] > Max)
      Max = Bucket[I];
  if (Max < First)
    return First;
  while (!(Chain[Max - First] & 1))
    ++Max;
  return Max + 1;
}

inline Tables tablesOf(const dl_phdr_info *Info) {
  Tables T;
  T.Base = Info->dlpi_addr;
  for (int I = 0; I < Info->dlpi_phnum; ++I) {
    if (Info->dlpi_phdr[I].p_type != PT_DYNAMIC)
      continue;
    auto *D = reinterpret_cast<const ElfW(Dyn) *>(T.Base +
                                                  Info->dlpi_phdr[I].p_vaddr);
    for (; D->d_tag != DT_NULL; ++D) {
      ElfW(Addr) P = absolute(T.Base, D->d_un.d_ptr);
      switch (D->d_tag) {
      case DT_SYMTAB:
        T.Symbols = reinterpret_cast<const ElfW(Sym) *>(P);
        break;
      case DT_STRTAB:
        T.Strings = reinterpret_cast<const char *>(P);
        break;
      case DT_JMPREL:
        T.PltRelocs = reinterpret_cast<const ElfW(Rela) *>(P);
        break;
      case DT_PLTRELSZ:
        T.PltRelocBytes = D->d_un.d_val;
        break;
      case DT_RELA:
        T.Relocs = reinterpret_cast<const ElfW(Rela) *>(P);
        break;
      case DT_RELASZ:
        T.RelocBytes = D->d_un.d_val;
        break;
      case DT_HASH:
        T.SymbolCount = reinterpret_cast<const std::uint32_t *>(P)[1];
        break;
      case DT_GNU_HASH:
        if (!T.SymbolCount)
          T.SymbolCount =
              gnuHashCount(reinterpret_cast<const std::uint32_t *>(P));
        break;
      }
    }
  }
  return T;
}

/// Whether [Address, Address + 8) is in a writable mapping.
inline bool writable(const void *Address) {
  std::FILE *Maps = std::fopen("/proc/self/maps", "r");
  if (!Maps)
    return false;
  char Line[512];
  bool W = false;
  auto A = reinterpret_cast<std::uintptr_t>(Address);
  while (std::fgets(Line, sizeof(Line), Maps)) {
    unsigned long Lo, Hi;
    char Perms[8];
    if (std::sscanf(Line, "%lx-%lx %7s", &Lo, &Hi, Perms) == 3 && A >= Lo &&
        A + 8 <= Hi) {
      W = Perms[1] == 'w';
      break;
    }
  }
  std::fclose(Maps);
  return W;
}

struct FindState {
  const char *Name;
  void *Found;
};

/// A defined function named \p Name in any loaded object, or nullptr.
inline void *lookup(const char *Name) {
  FindState S{Name, nullptr};
  dl_iterate_phdr(
      [](dl_phdr_info *Info, std::size_t, void *Data) {
        auto *S = static_cast<FindState *>(Data);
        Tables T = tablesOf(Info);
        if (!T.Symbols || !T.Strings)
          return 0;
        for (std::size_t I = 1; I < T.SymbolCount; ++I) {
          const ElfW(Sym) &Sym = T.Symbols[I];
          if (Sym.st_shndx != SHN_UNDEF && Sym.st_value &&
              ELF64_ST_TYPE(Sym.st_info) == STT_FUNC &&
              std::strcmp(T.Strings + Sym.st_name, S->Name) == 0) {
            S->Found = reinterpret_cast<void *>(T.Base + Sym.st_value);
            return 1;
          }
        }
        return 0;
      },
      &S);
  return S.Found;
}

struct PatchState {
  const char *Name;
  void *Replacement;
  void **Original;
  const char *OnlyIfDefines; // patch only objects defining this symbol
  const void *Skip;          // an address inside the object not to patch
  int Patched;
};

inline bool defines(const Tables &T, const char *Name) {
  for (std::size_t I = 1; I < T.SymbolCount; ++I)
    if (T.Symbols[I].st_shndx != SHN_UNDEF &&
        std::strcmp(T.Strings + T.Symbols[I].st_name, Name) == 0)
      return true;
  return false;
}

/// Points every writable GOT slot of \p Name (in objects other than the
/// one holding \p Skip, and only in objects defining \p OnlyIfDefines when
/// given) at \p Replacement; the first original target goes to *Original.
inline int patchGot(const char *Name, void *Replacement, void **Original,
                    const void *Skip, const char *OnlyIfDefines = nullptr) {
  PatchState S{Name, Replacement, Original, OnlyIfDefines, Skip, 0};
  dl_iterate_phdr(
      [](dl_phdr_info *Info, std::size_t, void *Data) {
        auto *S = static_cast<PatchState *>(Data);
        Tables T = tablesOf(Info);
        if (!T.Symbols || !T.Strings)
          return 0;
        auto Skip = reinterpret_cast<ElfW(Addr)>(S->Skip);
        for (int I = 0; I < Info->dlpi_phnum; ++I) {
          const ElfW(Phdr) &Ph = Info->dlpi_phdr[I];
          if (Ph.p_type == PT_LOAD && Skip >= T.Base + Ph.p_vaddr &&
              Skip < T.Base + Ph.p_vaddr + Ph.p_memsz)
            return 0;
        }
        if (S->OnlyIfDefines && !defines(T, S->OnlyIfDefines))
          return 0;
        for (int Table = 0; Table < 2; ++Table) {
          const ElfW(Rela) *R = Table ? T.Relocs : T.PltRelocs;
          std::size_t N =
              (Table ? T.RelocBytes : T.PltRelocBytes) / sizeof(ElfW(Rela));
          for (std::size_t I = 0; R && I < N; ++I) {
            std::size_t Sym = ELF64_R_SYM(R[I].r_info);
            if (!Sym ||
                std::strcmp(T.Strings + T.Symbols[Sym].st_name, S->Name) != 0)
              continue;
            void **Slot = reinterpret_cast<void **>(T.Base + R[I].r_offset);
            if (!writable(Slot))
              continue;
            if (S->Original && !*S->Original && *Slot != S->Replacement)
              *S->Original = *Slot;
            *Slot = S->Replacement;
            ++S->Patched;
          }
        }
        return 0;
      },
      &S);
  return S.Patched;
}

} // namespace cheat

#endif
