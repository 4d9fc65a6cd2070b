// revloop's root entry point (`import … from 'revloop'`): the lab's typed errors, the ones
// src/core/errors.ts defines. Everything else has one home: its folder's subpath ('revloop/core/verify',
// 'revloop/models', 'revloop/engine', …; docs/library.md), and the base classes these errors extend
// (RevloopError, markErrorClass, UserError, UsageError, CapabilityError, RevisionFailedError, ErrorCode)
// are the app library's, imported from '@revloop/revise'.
export {
  InputError,
  NotFoundError,
  PlanMismatchError,
  RunLockedError,
  StoreError,
  ProviderError,
  DataMissingError,
} from './core/errors.ts';
