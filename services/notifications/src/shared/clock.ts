// The kit's clock, named here so that the service's modules keep one import path for it.
export { systemClock, type Clock } from '@invoicing/service-kit/clock';
