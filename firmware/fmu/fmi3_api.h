/* The FMI 3.0 C interface that beltsim's FMU implements, declared from the standard (FMI 3.0,
 * section 2.2: platform types, status codes, callbacks, and the functions of model exchange,
 * co-simulation and scheduled execution). Names, types and argument lists are facts of the
 * interface; this file is written for beltsim and declares them as plain C prototypes.
 *
 * Every function is exported with default visibility (the library is built with hidden
 * visibility otherwise), because importers resolve all of them when they load the library. */
#ifndef BELTSIM_FMI3_API_H
#define BELTSIM_FMI3_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BELTSIM_FMI3_EXPORT __attribute__((visibility("default")))
#else
#define BELTSIM_FMI3_EXPORT
#endif

/* Platform types (FMI 3.0, 2.2.2). */
typedef void* fmi3Instance;
typedef void* fmi3InstanceEnvironment;
typedef void* fmi3FMUState;
typedef uint32_t fmi3ValueReference;
typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char* fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte* fmi3Binary;
typedef bool fmi3Clock;

/* Status codes and enumerations (FMI 3.0, 2.2.3 and 2.2.4). */
typedef enum { fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal } fmi3Status;
typedef enum {
  fmi3Independent,
  fmi3Constant,
  fmi3Fixed,
  fmi3Tunable,
  fmi3Discrete,
  fmi3Dependent
} fmi3DependencyKind;
typedef enum { fmi3IntervalNotYetKnown, fmi3IntervalUnchanged, fmi3IntervalChanged } fmi3IntervalQualifier;

/* Callbacks supplied by the importer. */
typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment instanceEnvironment, fmi3Status status,
                                       fmi3String category, fmi3String message);
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment);
typedef void (*fmi3IntermediateUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3Float64 intermediateUpdateTime,
                                               fmi3Boolean intermediateVariableSetRequested,
                                               fmi3Boolean intermediateVariableGetAllowed,
                                               fmi3Boolean intermediateStepFinished, fmi3Boolean canReturnEarly,
                                               fmi3Boolean* earlyReturnRequested, fmi3Float64* earlyReturnTime);
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);

#define BELTSIM_FMI3_VR const fmi3ValueReference valueReferences[], size_t nValueReferences

/* Common functions. */
BELTSIM_FMI3_EXPORT const char* fmi3GetVersion(void);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                                                   const fmi3String categories[]);
BELTSIM_FMI3_EXPORT fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                                              fmi3String resourcePath, fmi3Boolean visible,
                                                              fmi3Boolean loggingOn,
                                                              fmi3InstanceEnvironment instanceEnvironment,
                                                              fmi3LogMessageCallback logMessage);
BELTSIM_FMI3_EXPORT fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference requiredIntermediateVariables[], size_t nRequiredIntermediateVariables,
    fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3IntermediateUpdateCallback intermediateUpdate);
BELTSIM_FMI3_EXPORT fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3ClockUpdateCallback clockUpdate, fmi3LockPreemptionCallback lockPreemption,
    fmi3UnlockPreemptionCallback unlockPreemption);
BELTSIM_FMI3_EXPORT void fmi3FreeInstance(fmi3Instance instance);
BELTSIM_FMI3_EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                                           fmi3Float64 tolerance, fmi3Float64 startTime,
                                                           fmi3Boolean stopTimeDefined, fmi3Float64 stopTime);
BELTSIM_FMI3_EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance);
BELTSIM_FMI3_EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance instance);
BELTSIM_FMI3_EXPORT fmi3Status fmi3Terminate(fmi3Instance instance);
BELTSIM_FMI3_EXPORT fmi3Status fmi3Reset(fmi3Instance instance);

/* Getters and setters, one pair per variable type. */
#define BELTSIM_FMI3_ACCESSORS(Name, Type)                                                                   \
  BELTSIM_FMI3_EXPORT fmi3Status fmi3Get##Name(fmi3Instance instance, BELTSIM_FMI3_VR, Type values[], \
                                               size_t nValues);                                             \
  BELTSIM_FMI3_EXPORT fmi3Status fmi3Set##Name(fmi3Instance instance, BELTSIM_FMI3_VR, const Type values[], \
                                               size_t nValues);
BELTSIM_FMI3_ACCESSORS(Float32, fmi3Float32)
BELTSIM_FMI3_ACCESSORS(Float64, fmi3Float64)
BELTSIM_FMI3_ACCESSORS(Int8, fmi3Int8)
BELTSIM_FMI3_ACCESSORS(UInt8, fmi3UInt8)
BELTSIM_FMI3_ACCESSORS(Int16, fmi3Int16)
BELTSIM_FMI3_ACCESSORS(UInt16, fmi3UInt16)
BELTSIM_FMI3_ACCESSORS(Int32, fmi3Int32)
BELTSIM_FMI3_ACCESSORS(UInt32, fmi3UInt32)
BELTSIM_FMI3_ACCESSORS(Int64, fmi3Int64)
BELTSIM_FMI3_ACCESSORS(UInt64, fmi3UInt64)
BELTSIM_FMI3_ACCESSORS(Boolean, fmi3Boolean)
BELTSIM_FMI3_ACCESSORS(String, fmi3String)
#undef BELTSIM_FMI3_ACCESSORS
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetBinary(fmi3Instance instance, BELTSIM_FMI3_VR, size_t valueSizes[],
                                             fmi3Binary values[], size_t nValues);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetBinary(fmi3Instance instance, BELTSIM_FMI3_VR, const size_t valueSizes[],
                                             const fmi3Binary values[], size_t nValues);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetClock(fmi3Instance instance, BELTSIM_FMI3_VR, fmi3Clock values[]);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetClock(fmi3Instance instance, BELTSIM_FMI3_VR, const fmi3Clock values[]);

/* Dependencies. */
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                                                   fmi3ValueReference valueReference,
                                                                   size_t* nDependencies);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                                           size_t elementIndicesOfDependent[],
                                                           fmi3ValueReference independents[],
                                                           size_t elementIndicesOfIndependents[],
                                                           fmi3DependencyKind dependencyKinds[],
                                                           size_t nDependencies);

/* FMU state. */
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* FMUState);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState);
BELTSIM_FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* FMUState);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState,
                                                          size_t* size);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                                     fmi3Byte serializedState[], size_t size);
BELTSIM_FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                                       size_t size, fmi3FMUState* FMUState);

/* Derivatives. */
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                                            size_t nUnknowns, const fmi3ValueReference knowns[],
                                                            size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                                            fmi3Float64 sensitivity[], size_t nSensitivity);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                                        size_t nUnknowns, const fmi3ValueReference knowns[],
                                                        size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                                        fmi3Float64 sensitivity[], size_t nSensitivity);

/* Configuration mode, clocks, discrete states. */
BELTSIM_FMI3_EXPORT fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance);
BELTSIM_FMI3_EXPORT fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, BELTSIM_FMI3_VR, fmi3Float64 intervals[],
                                                      fmi3IntervalQualifier qualifiers[]);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, BELTSIM_FMI3_VR, fmi3UInt64 counters[],
                                                       fmi3UInt64 resolutions[], fmi3IntervalQualifier qualifiers[]);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, BELTSIM_FMI3_VR, fmi3Float64 shifts[]);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetShiftFraction(fmi3Instance instance, BELTSIM_FMI3_VR, fmi3UInt64 counters[],
                                                    fmi3UInt64 resolutions[]);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, BELTSIM_FMI3_VR,
                                                      const fmi3Float64 intervals[]);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, BELTSIM_FMI3_VR,
                                                       const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, BELTSIM_FMI3_VR, const fmi3Float64 shifts[]);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetShiftFraction(fmi3Instance instance, BELTSIM_FMI3_VR,
                                                    const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]);
BELTSIM_FMI3_EXPORT fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance);
BELTSIM_FMI3_EXPORT fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean* discreteStatesNeedUpdate,
                                                        fmi3Boolean* terminateSimulation,
                                                        fmi3Boolean* nominalsOfContinuousStatesChanged,
                                                        fmi3Boolean* valuesOfContinuousStatesChanged,
                                                        fmi3Boolean* nextEventTimeDefined, fmi3Float64* nextEventTime);

/* Model exchange. */
BELTSIM_FMI3_EXPORT fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance);
BELTSIM_FMI3_EXPORT fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                                           fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                           fmi3Boolean* enterEventMode,
                                                           fmi3Boolean* terminateSimulation);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time);
BELTSIM_FMI3_EXPORT fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                                       size_t nContinuousStates);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                                                 size_t nContinuousStates);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                                      size_t nEventIndicators);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                                       size_t nContinuousStates);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                                                 size_t nContinuousStates);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t* nEventIndicators);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t* nContinuousStates);

/* Co-simulation. */
BELTSIM_FMI3_EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance instance);
BELTSIM_FMI3_EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, BELTSIM_FMI3_VR,
                                                        const fmi3Int32 orders[], fmi3Float64 values[],
                                                        size_t nValues);
BELTSIM_FMI3_EXPORT fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                                          fmi3Float64 communicationStepSize,
                                          fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                          fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                                          fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime);

/* Scheduled execution. */
BELTSIM_FMI3_EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                                          fmi3Float64 activationTime);

#undef BELTSIM_FMI3_VR

#ifdef __cplusplus
}
#endif
#endif
