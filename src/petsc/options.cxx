// Options read through their records (src/core/format_record.hpp): the name, help and manual
// page -help shows, the range and allowed values checked, the record's message for a bad value.
#include "gpumat_impl.hpp"
#include "core/format_record.hpp"
#include <cstdio>
#include <string>
#include <vector>

namespace gpumat {

namespace {

PetscErrorCode CheckKind(const OptionRecord *rec, OptionKind kind)
{
  PetscFunctionBegin;
  PetscCheck(rec, PETSC_COMM_SELF, PETSC_ERR_PLIB, "an option read through its record has none (FormatRecord::option found no such key)");
  PetscCheck(rec->kind == kind, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the option %s is read as another kind than its record's", rec->name.c_str());
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

const OptionRecord *Machinery(const char *name)
{
  for (const OptionRecord &o : machinery_option_records())
    if (o.name == name) return &o;
  return nullptr;
}

PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *rec, PetscInt shown, PetscInt *value, PetscBool *set)
{
  PetscBool   given = PETSC_FALSE;
  std::string help;
  PetscFunctionBegin;
  PetscCall(CheckKind(rec, OptionKind::Int));
  const OptionRecord &o = *rec;
  PetscCallCXX(help = option_help(o));
  *value = shown;
  PetscCall(PetscOptionsInt(o.name.c_str(), help.c_str(), o.man.c_str(), shown, value, &given));
  if (given) {
    const bool in_range = option_in_range(o, (double)*value);
    if (!in_range || !option_allowed(o, (std::int64_t)*value)) {
      std::string msg;
      PetscCallCXX(msg = option_error(o, in_range, std::to_string((long long)*value), (std::int64_t)PETSC_INT_MAX));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s", msg.c_str());
    }
  }
  if (set) *set = given;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *rec, PetscReal shown, PetscReal *value, PetscBool *set)
{
  PetscBool   given = PETSC_FALSE;
  std::string help;
  PetscFunctionBegin;
  PetscCall(CheckKind(rec, OptionKind::Real));
  const OptionRecord &o = *rec;
  PetscCallCXX(help = option_help(o));
  *value = shown;
  PetscCall(PetscOptionsReal(o.name.c_str(), help.c_str(), o.man.c_str(), shown, value, &given));
  if (given && !option_in_range(o, (double)*value)) {
    char        v[32];
    std::string msg;
    std::snprintf(v, sizeof v, "%g", (double)*value);
    PetscCallCXX(msg = option_error(o, false, v, (std::int64_t)PETSC_INT_MAX));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s", msg.c_str());
  }
  if (set) *set = given;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *rec, PetscBool shown, PetscBool *value, PetscBool *set)
{
  PetscBool   given = PETSC_FALSE;
  std::string help;
  PetscFunctionBegin;
  PetscCall(CheckKind(rec, OptionKind::Bool));
  const OptionRecord &o = *rec;
  PetscCallCXX(help = option_help(o));
  *value = shown;
  PetscCall(PetscOptionsBool(o.name.c_str(), help.c_str(), o.man.c_str(), shown, value, &given));
  if (set) *set = given;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *rec, PetscEnum shown, PetscEnum *value, PetscBool *set)
{
  PetscBool                 given = PETSC_FALSE;
  std::string               help;
  std::vector<const char *> list; // the values, the type's name, its prefix, null: PETSc's enum list
  PetscFunctionBegin;
  PetscCall(CheckKind(rec, OptionKind::Enum));
  const OptionRecord &o = *rec;
  PetscCallCXX(help = option_help(o));
  for (const std::string &c : o.choices) PetscCallCXX(list.push_back(c.c_str()));
  PetscCallCXX(list.insert(list.end(), {o.enum_type.c_str(), o.enum_prefix.c_str(), nullptr}));
  *value = shown;
  PetscCall(PetscOptionsEnum(o.name.c_str(), help.c_str(), o.man.c_str(), list.data(), shown, value, &given));
  if (set) *set = given;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *rec, const char *shown, char *value, size_t size, PetscBool *set)
{
  PetscBool   given = PETSC_FALSE;
  std::string help;
  PetscFunctionBegin;
  PetscCall(CheckKind(rec, OptionKind::String));
  const OptionRecord &o = *rec;
  PetscCallCXX(help = option_help(o));
  if (value != shown) PetscCall(PetscStrncpy(value, shown, size));
  PetscCall(PetscOptionsString(o.name.c_str(), help.c_str(), o.man.c_str(), shown, value, size, &given));
  if (set) *set = given;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
