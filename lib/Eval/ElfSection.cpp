//===- ElfSection.cpp - One section of an ELF file's bytes ----------------===//
#include "kopt/Eval/ElfSection.h"

#include <cstdint>
#include <cstring>
#include <elf.h>

namespace kopt::eval {

namespace {
template <class T>
bool readAt(const std::string &File, std::uint64_t Offset, T &Out) {
  if (Offset > File.size() || File.size() - Offset < sizeof(T))
    return false;
  std::memcpy(&Out, File.data() + Offset, sizeof(T));
  return true;
}

bool inside(const std::string &File, std::uint64_t Offset, std::uint64_t Size) {
  return Offset <= File.size() && Size <= File.size() - Offset;
}
} // namespace

std::optional<std::string> readElfSection(const std::string &File,
                                          const std::string &Name,
                                          std::string &Error) {
  Elf64_Ehdr Header;
  if (!readAt(File, 0, Header) ||
      std::memcmp(Header.e_ident, ELFMAG, SELFMAG) != 0 ||
      Header.e_ident[EI_CLASS] != ELFCLASS64 ||
      Header.e_ident[EI_DATA] != ELFDATA2LSB) {
    Error = "not a 64-bit little-endian ELF file";
    return std::nullopt;
  }
  if (Header.e_shentsize != sizeof(Elf64_Shdr) ||
      Header.e_shstrndx >= Header.e_shnum) {
    Error = "the ELF section table is malformed";
    return std::nullopt;
  }
  auto Section = [&](unsigned I, Elf64_Shdr &Out) {
    return readAt(File, Header.e_shoff + std::uint64_t(I) * sizeof(Elf64_Shdr),
                  Out);
  };
  Elf64_Shdr Names;
  if (!Section(Header.e_shstrndx, Names) ||
      !inside(File, Names.sh_offset, Names.sh_size)) {
    Error = "the ELF section names are outside the file";
    return std::nullopt;
  }
  for (unsigned I = 0; I < Header.e_shnum; ++I) {
    Elf64_Shdr S;
    if (!Section(I, S)) {
      Error = "the ELF section table is outside the file";
      return std::nullopt;
    }
    if (S.sh_name >= Names.sh_size)
      continue;
    const char *Start = File.data() + Names.sh_offset + S.sh_name;
    std::size_t Room = Names.sh_size - S.sh_name;
    if (strnlen(Start, Room) == Room || Name != Start)
      continue;
    if (S.sh_type == SHT_NOBITS || !inside(File, S.sh_offset, S.sh_size)) {
      Error = "section " + Name + " has no bytes in the file";
      return std::nullopt;
    }
    return File.substr(S.sh_offset, S.sh_size);
  }
  Error = "no section " + Name;
  return std::nullopt;
}

std::optional<std::vector<std::string>> fatBinaries(const std::string &Section,
                                                    std::string &Error) {
  // struct { uint32 magic; uint16 version; uint16 header size; uint64 size; }
  std::vector<std::string> Found;
  std::uint64_t At = 0;
  while (At + 16 <= Section.size()) {
    std::uint32_t Magic = 0;
    std::uint16_t HeaderSize = 0;
    std::uint64_t Size = 0;
    readAt(Section, At, Magic);
    if (Magic != 0xBA55ED50u) {
      At += 8; // alignment padding
      continue;
    }
    readAt(Section, At + 6, HeaderSize);
    readAt(Section, At + 8, Size);
    if (HeaderSize < 16 || !inside(Section, At, HeaderSize) ||
        !inside(Section, At + HeaderSize, Size)) {
      Error = "a fat binary's size runs past its section";
      return std::nullopt;
    }
    Found.push_back(Section.substr(At, HeaderSize + Size));
    At += HeaderSize + Size;
  }
  if (Found.empty()) {
    Error = "the section holds no fat binary";
    return std::nullopt;
  }
  return Found;
}

std::vector<ElfObject> elfDataObjects(const std::string &File,
                                      std::size_t Max) {
  std::vector<ElfObject> Out;
  std::string Error;
  std::optional<std::string> Symbols = readElfSection(File, ".symtab", Error);
  std::optional<std::string> Names = readElfSection(File, ".strtab", Error);
  if (!Symbols || !Names)
    return Out;
  for (std::size_t At = 0;
       At + sizeof(Elf64_Sym) <= Symbols->size() && Out.size() < Max;
       At += sizeof(Elf64_Sym)) {
    Elf64_Sym S;
    std::memcpy(&S, Symbols->data() + At, sizeof(S));
    if (ELF64_ST_TYPE(S.st_info) != STT_OBJECT || S.st_shndx == SHN_UNDEF ||
        S.st_size == 0 || S.st_name == 0 || S.st_name >= Names->size())
      continue;
    const char *Start = Names->data() + S.st_name;
    Out.push_back(
        {std::string(Start, strnlen(Start, Names->size() - S.st_name)),
         S.st_value, S.st_size});
  }
  return Out;
}

} // namespace kopt::eval
